/**
 * Recall@8 of the vector side with an attribute filter (one store on SQLite), against exact search over only
 * the chunks the filter leaves (`exact.ts`, restricted to the files the filter keeps). The vector side plans a
 * filtered search by the share of the store the filter leaves (`vector/vector-candidates.ts`): few enough chunks
 * are scanned exactly; a share that leaves `BEAM_MARGIN` × k allowed chunks in the beam is applied to the beam
 * (the `ef` nearest, filtered); a smaller one inside hnswlib's graph search. The filters measured take both graph
 * plans:
 * - `part` = q % 7 (1/7 of the files, the latency phase's filter): applied to the beam at every size here;
 * - `topic` in n topics (n chosen per store size so the chunks left sit between the exact-scan limit and the
 *   beam's threshold): inside the graph. Once the query's own topic and the next ones (a filter that agrees with
 *   the query), once topics that are not the query's (a filter unrelated to it, as a tenant or permission filter).
 * A store above `FATHOM_IVF_ABOVE_CHUNKS` (the 1M one) is served by IVF indexes instead: each shard scores its share
 * of few allowed chunks exactly and filters its probed lists for many; the plan printed says which.
 */
import type { AttributeFilter } from '../../packages/core/src';
import { searchBeam } from '../../packages/core/src/vector/graph-parameters';
import { EXACT_FILTER_LABELS } from '../../packages/core/src/vector/ivf/ivf-index';
import { defaultLists, defaultProbes } from '../../packages/core/src/vector/ivf/ivf-parameters';
import { fileAttributes, fileTexts, type Layout, TopicAverageEmbedder } from './corpus';
import { exactTopKFromDataDir, type ExactScope } from './exact';
import { type Node, percentile } from './harness';
import type { RecallAnswer } from './node';

/** As in vector-candidates.ts: a filter applies to the beam when the beam holds this many times k allowed chunks. */
const BEAM_MARGIN = 2;
/**
 * The server's default FATHOM_EXACT_SEARCH_CHUNKS: a filter leaving at most this many chunks is scanned exactly.
 * The topic filters are sized by the default; the plan printed follows the variable, which the node inherits.
 */
const DEFAULT_EXACT_SEARCH_CHUNKS = 512;
const EXACT_SEARCH_CHUNKS = Number(process.env.FATHOM_EXACT_SEARCH_CHUNKS ?? DEFAULT_EXACT_SEARCH_CHUNKS);
/** The server's default FATHOM_IVF_ABOVE_CHUNKS: a larger store is served by IVF indexes (followed like the exact-scan size). */
const IVF_ABOVE_CHUNKS = Number(process.env.FATHOM_IVF_ABOVE_CHUNKS ?? 300_000);
/** Shards per store (store-graphs.ts). */
const SHARDS = 2;
const K = 8;
const TOPICS = 300;
/**
 * FILTER_TOPICS=n (or `n,m,…`): the topic filters take n topics (each size in turn) instead of the number computed per
 * store size, to measure the walk inside the graph at other sizes (a topic holds chunks / 300 chunks).
 */
const FILTER_TOPICS = process.env.FILTER_TOPICS?.split(',').map(Number);

interface FilterPlan {
  label: string;
  what: string;
  filterOf: (q: number) => AttributeFilter;
}

const fileNumberOf = (fileId: string) => Number(fileId.slice('file-'.length));
const matches = (filter: AttributeFilter, file: number): boolean => {
  const attributes = fileAttributes(file);
  if (filter.type === 'eq') return attributes[filter.key as keyof typeof attributes] === filter.value;
  if (filter.type === 'in') return filter.value.includes(attributes[filter.key as keyof typeof attributes]);
  throw new Error(`The filtered recall uses eq and in filters only, not ${filter.type}.`);
};

/** The query's topic (`benchQueries`: query i is about topic (i × 7) % 300). */
const topicOf = (q: number) => (q * 7) % TOPICS;

function plans(chunks: number): FilterPlan[] {
  // Chunks a filter must leave to be searched inside the graph: above the exact scan, below the beam's threshold.
  const beamThreshold = (BEAM_MARGIN * K * chunks) / searchBeam(chunks, K);
  const target = Math.sqrt(DEFAULT_EXACT_SEARCH_CHUNKS * beamThreshold);
  const sizes = FILTER_TOPICS ?? [Math.max(1, Math.round(target / (chunks / TOPICS)))];
  return [
    { label: 'part', what: 'part = q % 7', filterOf: (q) => ({ type: 'eq', key: 'part', value: q % 7 }) },
    ...sizes.flatMap((topics) => topicPlans(topics)),
  ];
}

/** The filters of `topics` topics: the query's own and the next ones, and as many others. */
function topicPlans(topics: number): FilterPlan[] {
  const run = (first: number) => Array.from({ length: topics }, (_, t) => (first + t) % TOPICS);
  return [
    {
      label: `topics-own-${topics}`,
      what: `topic in the query's own ${topics === 1 ? 'topic' : `and the next ${topics - 1}`}`,
      filterOf: (q) => ({ type: 'in', key: 'topic', value: run(topicOf(q)) }),
    },
    {
      label: `topics-other-${topics}`,
      what: `topic in ${topics} other topic${topics === 1 ? '' : 's'}`,
      filterOf: (q) => ({ type: 'in', key: 'topic', value: run(topicOf(q) + TOPICS / 2) }),
    },
  ];
}

/** The plan the vector side takes for a filter leaving `kept` of `chunks` chunks (vector-candidates.ts), and its beam per shard. */
function planOf(kept: number, chunks: number): { how: string; beam?: number } {
  if (kept <= EXACT_SEARCH_CHUNKS) return { how: 'scanned exactly' };
  if (chunks > IVF_ABOVE_CHUNKS) {
    // An IVF shard scores its share of the allowed chunks exactly up to half of what its probed lists hold (ivf-index.ts).
    const perShard = chunks / SHARDS;
    const lists = defaultLists(perShard);
    const bound = Math.max(EXACT_FILTER_LABELS, Math.round((perShard * defaultProbes(lists)) / lists / 2));
    return { how: kept / SHARDS <= bound ? 'IVF, allowed chunks scored exactly' : 'IVF, probed lists filtered' };
  }
  // The vector side is asked for the search's depth of candidates (at least 40), not the k of the recall.
  const depth = Math.max(40, 2 * K);
  const ef = searchBeam(chunks, depth);
  const share = kept / chunks;
  if (share * ef >= BEAM_MARGIN * depth) return { how: 'applied to the beam', beam: ef };
  return { how: 'inside the graph', beam: Math.max(depth, Math.ceil(ef * Math.sqrt(share))) };
}

/** The plans a filter's queries took, e.g. `inside the graph (beam 115-117 per shard)`, with counts when they differ. */
function describePlans(plans: Array<{ how: string; beam?: number }>): string {
  const kinds = [...new Set(plans.map((plan) => plan.how))];
  return kinds
    .map((how) => {
      const same = plans.filter((plan) => plan.how === how);
      const beams = same.flatMap((plan) => (plan.beam === undefined ? [] : [plan.beam]));
      const range = beams.length
        ? ` (beam ${Math.min(...beams)}${Math.max(...beams) > Math.min(...beams) ? `-${Math.max(...beams)}` : ''} per shard)`
        : '';
      return `${how}${range}${kinds.length > 1 ? ` for ${same.length} queries` : ''}`;
    })
    .join(', ');
}

/**
 * Prints recall@8 of the vector side per filter of `plans`, with the chunks each leaves, the plan it takes and the CPU
 * time of its searches in the server process (every thread; the machine's load disturbs it least).
 */
export async function filteredRecall(
  node: Node,
  layout: Layout,
  storeId: string,
  dataDir: string,
  queries: string[],
  /** CPU of each search of these queries without a filter (the unfiltered recall's), for comparison. */
  unfilteredCpu: number[],
  print: (line: string) => void,
): Promise<void> {
  const embedder = new TopicAverageEmbedder();
  const vectors = queries.map((query) => embedder.embedOne(query));
  const files = layout.filesPerStore;
  const chunks = files * layout.chunksPerFile;
  print(`  recall@8 of the vector side with a filter, vs exact search over the chunks it leaves (${queries.length} queries):`);
  print(
    `    ${'(no filter: the line above)'.padEnd(44)}        vector search CPU p50 ${percentile(unfilteredCpu, 50).toFixed(2)} ms, p99 ${percentile(unfilteredCpu, 99).toFixed(2)} ms (the first search loads the graphs)`,
  );
  for (const plan of plans(chunks)) {
    const started = performance.now();
    const filters = queries.map((_, q) => plan.filterOf(q));
    const scopes: ExactScope[] = filters.map((filter) => ({
      name: JSON.stringify(filter),
      keeps: (fileId) => matches(filter, fileNumberOf(fileId)),
    }));
    const exact = exactTopKFromDataDir(dataDir, storeId, vectors, K, { label: plan.label, scopes });
    const referenceMs = performance.now() - started;
    const { hits, cpu } = await node.call<RecallAnswer>({ op: 'recall', storeId, queries, filters });
    let found = 0;
    let wanted = 0;
    exact.forEach((pairs, q) => {
      const wantedTexts = new Set(
        pairs.map(({ fileId, chunk }) => `${fileId}|${fileTexts(fileNumberOf(fileId), layout.chunksPerFile)[chunk]}`),
      );
      wanted += wantedTexts.size;
      found += hits[q]!.filter((hit) => wantedTexts.has(`${hit.file_id}|${hit.text}`)).length;
    });
    // Chunks left per query (every file of the layout holds chunksPerFile chunks), and the plans they take.
    const kept = filters.map(
      (filter) => Array.from({ length: files }, (_, file) => file).filter((file) => matches(filter, file)).length * layout.chunksPerFile,
    );
    const meanKept = kept.reduce((a, b) => a + b, 0) / kept.length;
    const planned = describePlans(kept.map((chunksLeft) => planOf(chunksLeft, chunks)));
    print(
      `    ${plan.what.padEnd(44)} ${(found / wanted).toFixed(3)}  (${Math.round(meanKept).toLocaleString('en-US')} chunks, ${((100 * meanKept) / chunks).toFixed(2)}% of the store: ${planned}; vector search CPU p50 ${percentile(cpu, 50).toFixed(2)} ms, p99 ${percentile(cpu, 99).toFixed(2)} ms; reference ${(referenceMs / 1000).toFixed(1)} s)`,
    );
  }
}
