import { useState, type FormEvent } from 'react';
import type { SearchHit } from '../api/types';
import { Empty, ErrorMessage, Section, useAction, useApi } from '../components/ui';

/** `POST /v1/vector_stores/{id}/search` with query, attribute filters, max results and score threshold. */
export function SearchPlayground({ storeId }: { storeId: string }) {
  const api = useApi();
  const [query, setQuery] = useState('');
  const [filters, setFilters] = useState('');
  const [maxResults, setMaxResults] = useState(10);
  const [threshold, setThreshold] = useState(0);
  const [hits, setHits] = useState<SearchHit[] | undefined>();
  const search = useAction(async (event: FormEvent) => {
    event.preventDefault();
    let parsedFilters: unknown;
    if (filters.trim()) {
      try {
        parsedFilters = JSON.parse(filters);
      } catch (error) {
        throw new Error(`Filters are not valid JSON: ${(error as Error).message}`);
      }
    }
    const answer = await api.post<{ data: SearchHit[] }>(`/v1/vector_stores/${encodeURIComponent(storeId)}/search`, {
      query,
      max_num_results: maxResults,
      ranking_options: { score_threshold: threshold },
      ...(parsedFilters ? { filters: parsedFilters } : {}),
    });
    setHits(answer.data);
  });

  return (
    <Section title="Search">
      <form className="grid-form" onSubmit={search.run}>
        <label htmlFor="search-query">Query</label>
        <input id="search-query" value={query} onChange={(event) => setQuery(event.target.value)} required />
        <label htmlFor="search-filters">Filters (JSON, optional)</label>
        <textarea
          id="search-filters"
          rows={2}
          placeholder='{"type": "eq", "key": "team", "value": "sales"}'
          value={filters}
          onChange={(event) => setFilters(event.target.value)}
        />
        <label htmlFor="search-max">Max results</label>
        <input
          id="search-max"
          type="number"
          min={1}
          max={50}
          value={maxResults}
          onChange={(event) => setMaxResults(Number(event.target.value))}
        />
        <label htmlFor="search-threshold">Score threshold</label>
        <input
          id="search-threshold"
          type="number"
          min={0}
          max={1}
          step={0.05}
          value={threshold}
          onChange={(event) => setThreshold(Number(event.target.value))}
        />
        <button type="submit" disabled={search.pending}>
          Search
        </button>
      </form>
      <ErrorMessage error={search.error} />
      {hits && hits.length === 0 ? <Empty>No passage matched. Lower the threshold or check that the files completed.</Empty> : null}
      {hits && hits.length > 0 ? (
        <ol className="hits" aria-label="Search results">
          {hits.map((hit, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: one file may give several passages; rank is their identity.
            <li key={`${hit.file_id}-${index}`}>
              <div className="hit-head">
                <strong>{hit.filename}</strong> <span>score {hit.score.toFixed(3)}</span>
              </div>
              <blockquote>{hit.content.map((part) => part.text).join('\n')}</blockquote>
            </li>
          ))}
        </ol>
      ) : null}
    </Section>
  );
}
