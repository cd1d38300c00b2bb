import { useMemo, useState } from 'react';
import type { UsageGroup, UsageGroupsPage } from '../api/types';
import { FiguresTable, formatCost, keyLabel, RangeSelect, rangeStart } from './chart-parts';
import { DayChart, seriesByDay } from './day-chart';
import { Empty, ErrorMessage, Section, useApi, useLoad } from './ui';

type Measure = 'total' | 'input' | 'output';

const MEASURES: ReadonlyArray<{ value: Measure; label: string }> = [
  { value: 'total', label: 'input + output' },
  { value: 'input', label: 'input' },
  { value: 'output', label: 'output' },
];

const tokensOf = (row: UsageGroup, measure: Measure): number =>
  measure === 'input' ? row.prompt_tokens : measure === 'output' ? row.completion_tokens : row.prompt_tokens + row.completion_tokens;

/**
 * The account's keys over a range: tokens per day stacked by key (`GET /v1/usage?group_by=day,key`; input,
 * output or both) and the keys ranked by spend (`GET /v1/usage?group_by=key`), each named by the usage
 * answer (name or redacted value, never a secret), so a key without the `keys` permission sees them too.
 */
export function KeysSection() {
  const api = useApi();
  const [range, setRange] = useState<number>(30);
  const [measure, setMeasure] = useState<Measure>('total');
  const perDay = useLoad(
    (signal) => api.get<UsageGroupsPage>('/v1/usage', { group_by: 'day,key', start_time: rangeStart(range) }, signal),
    [range],
  );
  const perKey = useLoad(
    (signal) => api.get<UsageGroupsPage>('/v1/usage', { group_by: 'key', start_time: rangeStart(range) }, signal),
    [range],
  );
  const rows = useMemo(() => (perDay.data?.data ?? []).map((row) => ({ ...row, date: row.day ?? '' })), [perDay.data]);
  const chart = useMemo(
    () =>
      seriesByDay(
        rows,
        (row) => keyLabel(row),
        (row) => tokensOf(row, measure),
        6,
        range,
      ),
    [rows, measure, range],
  );
  // Highest spend first; among keys that spent the same (free models), most tokens first.
  const top = useMemo(
    () =>
      [...(perKey.data?.data ?? [])].sort(
        (a, b) => b.cost - a.cost || b.total_tokens - a.total_tokens || keyLabel(a).localeCompare(keyLabel(b)),
      ),
    [perKey.data],
  );
  const what = measure === 'total' ? 'Tokens' : measure === 'input' ? 'Input tokens' : 'Output tokens';

  return (
    <Section title="Usage by key">
      <div className="chart-controls">
        <RangeSelect id="keys-range" value={range} onChange={setRange} />
        <div role="radiogroup" aria-labelledby="keys-measure" className="inline">
          <span id="keys-measure">Tokens</span>
          {MEASURES.map((option) => (
            <label key={option.value}>
              <input type="radio" name="keys-measure" checked={measure === option.value} onChange={() => setMeasure(option.value)} />{' '}
              {option.label}
            </label>
          ))}
        </div>
      </div>
      <ErrorMessage error={perDay.error ?? perKey.error} />
      {perDay.data && rows.length === 0 ? <Empty>No model calls in this range.</Empty> : null}
      {rows.length > 0 ? (
        <figure>
          <figcaption>{what} per day, by key</figcaption>
          <DayChart label={`${what} per day, by key`} days={chart.days} series={chart.series} stacked />
        </figure>
      ) : null}
      {rows.length > 0 ? (
        <FiguresTable
          label="Tokens per day and key"
          rows={rows}
          rowKey={(row) => `${row.day}-${row.key_id}`}
          columns={[
            { header: 'Day', cell: (row) => row.day },
            { header: 'Key', cell: (row) => keyLabel(row) },
            { header: 'Input tokens', cell: (row) => row.prompt_tokens, numeric: true },
            { header: 'Output tokens', cell: (row) => row.completion_tokens, numeric: true },
          ]}
        />
      ) : null}
      {top.length > 0 ? (
        <>
          <h3>Top keys by spend</h3>
          <FiguresTable
            label="Top keys by spend"
            rows={top}
            rowKey={(row) => String(row.key_id)}
            columns={[
              { header: 'Rank', cell: (row) => top.indexOf(row) + 1, numeric: true },
              { header: 'Key', cell: (row) => keyLabel(row) },
              { header: 'Redacted value', cell: (row) => row.key_redacted_value ?? '—' },
              { header: 'Spend', cell: (row) => formatCost(row.cost), numeric: true },
              { header: 'Tokens', cell: (row) => row.total_tokens, numeric: true },
              { header: 'Requests', cell: (row) => row.requests, numeric: true },
            ]}
          />
        </>
      ) : null}
    </Section>
  );
}
