/**
 * Scale benchmark: one node (a Fathom server process, `bench/scale/node.ts`) with one store of 100k,
 * 300k and 1M chunks, with 10,000 stores of 100 chunks, and with 100k chunks on PostgreSQL (PGlite).
 * For each: build throughput, the server's RSS after ingestion (and per chunk), disk bytes per chunk,
 * vector / keyword / hybrid / hybrid + attribute-filter latency (p50, p99), recall@8 of the vector side
 * against exact search, the time from process start to the first answered search on the existing data
 * dir, and, after a SIGKILL in the middle of ingestion, the time until the store answers searches again
 * and until every acknowledged chunk is back (nothing lost). The 10,000-store run adds memory as more
 * stores are searched and the latency of a store's first (cold) search.
 *
 * Corpus: the search benchmark's topical text and 384-d clustered vectors (300 tight topics), 100-chunk
 * files (the stores run: 2 files of 50 per store), generated per file from its own seed.
 *
 * Run: npm run bench -- scale   (SCALE=100k,300k,1m,stores,pg-100k by default; SCALE=100k for one;
 * QUERIES=200). Heavy: about an hour on a quiet 2-core machine, more when loaded; run under `nice`.
 * SCALE_DATA_DIR keeps (or reuses) a data dir, SCALE_PHASES picks phases, FILTER_TOPICS=n[,m…] sizes the
 * filtered recall's topic filters (`scale/filtered-recall.ts`).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PostgresDatabase } from '../packages/core/src/storage';
import { startTestPostgres, type TestPostgres } from '../packages/core/src/test/postgres';
import {
  benchQueries,
  exactTopK,
  fileAttributes,
  fileNumber,
  fileTexts,
  type Layout,
  TopicAverageEmbedder,
  totalChunks,
} from './scale/corpus';
import { processCpuMs } from './peers/stats';
import { diskBytes, firstAnsweredSearch, mb, memoryOf, ms, type Node, percentile, seconds, startNode } from './scale/harness';
import type { MissDiagnosis } from './scale/diagnose';
import { exactTopKFromDataDir } from './scale/exact';
import { filteredRecall } from './scale/filtered-recall';
import type { Latencies, Miss, Mode, RecallAnswer } from './scale/node';

interface Scenario {
  name: string;
  layout: Layout;
  postgres?: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  // Quick runs while developing (not in the default list).
  '10k': { name: 'one store, 10k chunks', layout: { stores: 1, filesPerStore: 100, chunksPerFile: 100 } },
  'stores-1k': { name: '1,000 stores of 100 chunks', layout: { stores: 1_000, filesPerStore: 2, chunksPerFile: 50 } },
  // 10,000 stores with a tenth of the chunks (100k in all): the many-stores mechanism in a tenth of the time.
  'stores-10k-small': { name: '10,000 stores of 10 chunks', layout: { stores: 10_000, filesPerStore: 2, chunksPerFile: 5 } },
  'pg-10k': {
    name: 'PostgreSQL (PGlite), one store, 10k chunks',
    layout: { stores: 1, filesPerStore: 100, chunksPerFile: 100 },
    postgres: true,
  },
  '100k': { name: 'one store, 100k chunks', layout: { stores: 1, filesPerStore: 1_000, chunksPerFile: 100 } },
  '300k': { name: 'one store, 300k chunks', layout: { stores: 1, filesPerStore: 3_000, chunksPerFile: 100 } },
  '1m': { name: 'one store, 1M chunks', layout: { stores: 1, filesPerStore: 10_000, chunksPerFile: 100 } },
  stores: { name: '10,000 stores of 100 chunks', layout: { stores: 10_000, filesPerStore: 2, chunksPerFile: 50 } },
  'pg-100k': {
    name: 'PostgreSQL (PGlite), one store, 100k chunks',
    layout: { stores: 1, filesPerStore: 1_000, chunksPerFile: 100 },
    postgres: true,
  },
  // Not in the default list: past 100k chunks of one vector size the PostgreSQL beam sits at pgvector's cap (1000).
  'pg-150k': {
    name: 'PostgreSQL (PGlite), one store, 150k chunks',
    layout: { stores: 1, filesPerStore: 1_500, chunksPerFile: 100 },
    postgres: true,
  },
  'pg-200k': {
    name: 'PostgreSQL (PGlite), one store, 200k chunks',
    layout: { stores: 1, filesPerStore: 2_000, chunksPerFile: 100 },
    postgres: true,
  },
};
const QUERIES = Number(process.env.QUERIES ?? 200);
/** The phases after the build (SCALE_PHASES=recall on a kept data dir measures recall alone). */
const PHASES = new Set((process.env.SCALE_PHASES ?? 'latency,recall,restart,crash').split(',').map((phase) => phase.trim()));
const RECALL_QUERIES = 100;
/** How long after a crash the check waits for every acknowledged file to be whole and found. */
const CRASH_WAIT_MS = Number(process.env.CRASH_WAIT_MS ?? 300_000);
const MODES: Mode[] = ['vector', 'keyword', 'hybrid', 'hybrid+filter'];
const embedder = new TopicAverageEmbedder();
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const print = (line: string) => console.log(line);

async function run(key: string, scenario: Scenario): Promise<void> {
  const { layout } = scenario;
  const chunks = totalChunks(layout);
  const many = layout.stores > 1;
  print(`\n--- ${scenario.name} (${chunks.toLocaleString('en-US')} chunks; load average ${load()}) ---`);
  // SCALE_DATA_DIR keeps the data dir (built once, reused by later runs of the same scenario).
  const kept = process.env.SCALE_DATA_DIR;
  if (kept && scenario.postgres)
    throw new Error('SCALE_DATA_DIR keeps a SQLite data dir; the PostgreSQL scenarios start a fresh database.');
  if (kept) mkdirSync(kept, { recursive: true });
  const dataDir = kept ?? mkdtempSync(join(tmpdir(), `fathom-scale-${key}-`));
  const marker = join(dataDir, 'scale-bench.json');
  const reused = kept && existsSync(marker) ? (JSON.parse(readFileSync(marker, 'utf8')) as { key: string; storeIds: string[] }) : undefined;
  if (reused && reused.key !== key) throw new Error(`${dataDir} holds the scenario '${reused.key}', not '${key}'.`);
  // A kept dir with a database and no marker was changed by a crash phase (it removes the marker): building the
  // scenario again would add a second set of stores beside the first, and every later figure would be theirs.
  if (kept && !reused && existsSync(join(dataDir, 'fathom.db')))
    throw new Error(
      `${dataDir} holds a database the bench no longer vouches for (a crash phase added files to it): use a new SCALE_DATA_DIR.`,
    );
  let postgres: TestPostgres | undefined;
  const env: Record<string, string> = { FATHOM_DATA_DIR: dataDir };
  if (scenario.postgres) {
    postgres = await startTestPostgres();
    env.FATHOM_DATABASE_URL = postgres.url;
  }
  const echo = (line: string) => {
    if (process.env.SCALE_VERBOSE || /Rebuilding|Updating|HNSW/.test(line)) print(`    [node] ${line}`);
  };
  try {
    // ---- build -------------------------------------------------------------------------------------
    let node = await startNode(env, { echo });
    if (reused) print(`  reusing the data dir ${dataDir} (built by an earlier run; build figures are that run's)`);
    const storeIds = reused ? reused.storeIds : await build(node, scenario, dataDir, postgres);
    if (kept && !reused) writeFileSync(marker, JSON.stringify({ key, storeIds }));

    // ---- latency and recall ----------------------------------------------------------------------------
    if (PHASES.has('latency')) {
      const { waitedMs, settled } = await node.call<{ waitedMs: number; settled: boolean }>({ op: 'settle', timeoutMs: 300_000 });
      if (waitedMs >= 1_000 || !settled)
        print(
          `  keyword index: ${settled ? 'its FTS5 segments merged' : 'still merging its FTS5 segments'} after ${seconds(waitedMs)} of waiting (searches are slower meanwhile: docs/performance.md); latency measured ${settled ? 'after' : 'regardless'}`,
        );
      // Many stores: each query goes to another store (the first search of each is cold: see below).
      const searched = many ? sample(Array.from(storeIds.keys()), QUERIES, 1) : [0];
      // Many stores: the filter keeps one of the store's two files.
      const filterParts = many ? searched.map((store) => fileAttributes(fileNumber(layout, store, 0)).part) : undefined;
      const times = await node.call<Latencies>({
        op: 'latency',
        storeIds: searched.map((store) => storeIds[store]!),
        queries: QUERIES,
        modes: MODES,
        maxNumResults: 10,
        filterParts,
      });
      printLatency(times, many ? 'each query on another store (the first search of a store included)' : 'one store');
    }
    if (PHASES.has('recall')) await recall(node, layout, storeIds, scenario.postgres ? undefined : dataDir);
    if (!reused && (PHASES.has('latency') || PHASES.has('recall'))) {
      // Index work the ingestion left running (an IVF retrain, a save) ends during the phases above: its peak shows here.
      const { rss, peak } = memoryOf(node.child.pid!);
      print(`  server RSS after the phases above: ${mb(rss)}, peak since it started ${mb(peak)}`);
    }

    // ---- restart: from process start to the first answered search --------------------------------------
    await node.exit();
    node = await startNode(env, { echo });
    if (PHASES.has('restart')) {
      const target = storeIds[Math.floor(storeIds.length * 0.4321)]!;
      const firstSearch = await firstAnsweredSearch(node, target, benchQueries(1)[0]!);
      print(
        `  restart on the existing data: listening after ${seconds(node.readyMs)}, first search answered after ${seconds(firstSearch.wall)} from process start (${seconds(firstSearch.cpu)} of CPU)`,
      );
      if (many) await coldStores(node, storeIds);
    }

    // ---- crash in the middle of ingestion ----------------------------------------------------------------
    if (PHASES.has('crash')) {
      // The crash adds files to the store(s): a kept data dir no longer holds the scenario as built.
      if (kept) rmSync(marker, { force: true });
      await crash(node, env, layout, storeIds, echo);
    } else await node.exit();
  } finally {
    await postgres?.close();
    if (!kept) rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Creates the stores and ingests the scenario; prints build throughput, memory and disk. Answers the store ids. */
async function build(node: Node, scenario: Scenario, dataDir: string, postgres: TestPostgres | undefined): Promise<string[]> {
  const { layout } = scenario;
  const chunks = totalChunks(layout);
  const storeIds = await node.call<string[]>({ op: 'create-stores', count: layout.stores });
  const stop = node.onMessage((message) => {
    if ('progress' in message && (process.env.SCALE_VERBOSE || message.progress % 100_000 === 0))
      process.stdout.write(`\r  ingested ${message.progress.toLocaleString('en-US')}`);
  });
  const buildStarted = performance.now();
  await node.call({ op: 'ingest', layout, storeIds, fromStore: 0, toStore: layout.stores });
  await node.call({ op: 'flush' });
  const buildMs = performance.now() - buildStarted;
  stop();
  process.stdout.write('\r');
  const afterBuild = memoryOf(node.child.pid!);
  const disk = scenario.postgres ? await postgresBytes(postgres!.url) : diskBytes(dataDir);
  const graphs = await node.call<{ stores: number; bytes: number } | null>({ op: 'graphs' });
  print(`  build: ${(chunks / (buildMs / 1000)).toFixed(0)} chunks/s (${seconds(buildMs)}, embedding + rows + keywords + graphs, saved)`);
  print(
    `  server RSS after ingestion: ${mb(afterBuild.rss)} (${(afterBuild.rss / chunks).toFixed(0)} bytes/chunk), peak ${mb(afterBuild.peak)}` +
      (graphs ? `; graphs in memory: ${graphs.stores} (${mb(graphs.bytes)})` : ''),
  );
  print(
    `  ${scenario.postgres ? 'database (vector tables and indexes)' : 'data dir'}: ${mb(disk)} = ${(disk / chunks).toFixed(0)} bytes/chunk`,
  );
  return storeIds;
}

function printLatency(times: Latencies, what: string): void {
  print(`  latency (${what}; ${QUERIES} queries of 8 words, max_num_results 10, modes taking turns; wall, and CPU of the process):`);
  for (const mode of MODES) {
    const { wall, cpu } = times[mode];
    print(
      `    ${mode.padEnd(14)} p50 ${ms(percentile(wall, 50)).padStart(9)}   p99 ${ms(percentile(wall, 99)).padStart(9)}   CPU p50 ${ms(percentile(cpu, 50)).padStart(9)}   p99 ${ms(percentile(cpu, 99)).padStart(9)}`,
    );
  }
  const ratio = (stat: 'wall' | 'cpu') => (percentile(times['hybrid+filter'][stat], 50) / percentile(times.hybrid[stat], 50)).toFixed(2);
  print(`    hybrid + filter / hybrid, p50: ${ratio('wall')}x wall, ${ratio('cpu')}x CPU (target <= 2x)`);
}

/**
 * Recall@8 of the vector side against exact search over the same store, 100 queries. One store on SQLite:
 * the reference scans the vectors the store holds (`scale/exact.ts`), and recall is measured with filters too
 * (`scale/filtered-recall.ts`); otherwise it re-embeds the texts.
 */
async function recall(node: Node, layout: Layout, storeIds: string[], sqliteDir: string | undefined): Promise<void> {
  const many = layout.stores > 1;
  const queries = benchQueries(RECALL_QUERIES);
  const stores = many ? sample(Array.from(storeIds.keys()), RECALL_QUERIES, 2) : [0];
  const started = performance.now();
  let found = 0;
  let wanted = 0;
  const searchCpu: number[] = [];
  // One store: all queries against it; many: query i against its own store.
  const groups = many ? queries.map((query, i) => ({ store: stores[i]!, queries: [query] })) : [{ store: 0, queries }];
  for (const group of groups) {
    const files = Array.from({ length: layout.filesPerStore }, (_, index) => fileNumber(layout, group.store, index));
    const vectors = group.queries.map((query) => embedder.embedOne(query));
    const exact =
      sqliteDir && !many
        ? exactTopKFromDataDir(sqliteDir, storeIds[group.store]!, vectors, 8).map((pairs) =>
            pairs.map(({ fileId, chunk }) => ({ file: Number(fileId.slice('file-'.length)), chunk })),
          )
        : exactTopK(embedder, vectors, files, layout.chunksPerFile, 8);
    const { hits, cpu } = await node.call<RecallAnswer>({
      op: 'recall',
      storeId: storeIds[group.store]!,
      queries: group.queries,
    });
    searchCpu.push(...cpu);
    exact.forEach((pairs, q) => {
      const wantedTexts = new Set(pairs.map(({ file, chunk }) => `file-${file}|${fileTexts(file, layout.chunksPerFile)[chunk]}`));
      wanted += wantedTexts.size;
      found += hits[q]!.filter((hit) => wantedTexts.has(`${hit.file_id}|${hit.text}`)).length;
    });
  }
  print(
    `  recall@8 of the vector side vs exact search (${RECALL_QUERIES} queries): ${(found / wanted).toFixed(3)} (target >= 0.95; reference took ${seconds(performance.now() - started)})`,
  );
  // One store on SQLite: the same with the latency phase's filter, and with filters small enough to be searched inside the graph.
  if (sqliteDir && !many) await filteredRecall(node, layout, storeIds[0]!, sqliteDir, queries, searchCpu, print);
}

/** Many stores after a restart: memory as more stores are searched, and the latency of first searches. */
async function coldStores(node: Node, storeIds: string[]): Promise<void> {
  const pid = node.child.pid!;
  print(`  after restart, idle: RSS ${mb(memoryOf(pid).rss)}`);
  let searched = 0;
  for (const count of [200, 1_000, storeIds.length]) {
    const stores = storeIds.slice(searched, count);
    const times = await node.call<Latencies>({
      op: 'latency',
      storeIds: stores,
      queries: stores.length,
      modes: ['hybrid'],
      maxNumResults: 10,
      warmUp: false,
    });
    searched = count;
    const graphs = await node.call<{ stores: number; bytes: number } | null>({ op: 'graphs' });
    print(
      `  first search of ${stores.length.toLocaleString('en-US')} more stores (${searched.toLocaleString('en-US')} searched): hybrid p50 ${ms(percentile(times.hybrid.wall, 50))}, p99 ${ms(percentile(times.hybrid.wall, 99))} (CPU p50 ${ms(percentile(times.hybrid.cpu, 50))}); RSS ${mb(memoryOf(pid).rss)}` +
        (graphs ? `, graphs in memory ${graphs.stores}` : ''),
    );
  }
}

/**
 * Ingests more files and kills the node (SIGKILL) in the middle of a file, some seconds in; restarts
 * it and measures until the store answers and until every acknowledged file is whole and found by the
 * vector side.
 */
async function crash(
  node: Node,
  env: Record<string, string>,
  layout: Layout,
  storeIds: string[],
  echo: (line: string) => void,
): Promise<void> {
  const many = layout.stores > 1;
  // One store: 60 more files of it; many stores: 60 new stores.
  const extra: Layout = many ? { ...layout, stores: layout.stores + 60 } : { ...layout, filesPerStore: layout.filesPerStore + 60 };
  const ids = many ? [...storeIds, ...(await node.call<string[]>({ op: 'create-stores', count: 60 }))] : storeIds;
  const acked: Array<{ store: number; index: number }> = [];
  node.onMessage((message) => {
    if ('acked' in message) acked.push(message.acked);
  });
  const ingesting = many
    ? node.call({ op: 'ingest', layout: extra, storeIds: ids, fromStore: layout.stores, toStore: extra.stores, ackEachFile: true })
    : node.call({
        op: 'ingest',
        layout: extra,
        storeIds: ids,
        fromStore: 0,
        toStore: 1,
        fromFile: layout.filesPerStore,
        ackEachFile: true,
      });
  ingesting.catch(() => undefined);
  const killAfter = Number(process.env.CRASH_AFTER_MS ?? 20_000);
  const started = performance.now();
  while (performance.now() - started < killAfter && acked.length < 55) await new Promise((resolve) => setTimeout(resolve, 100));
  await node.kill();
  print(`  crash: SIGKILL after ${acked.length} acknowledged files (${seconds(performance.now() - started)} into the ingestion)`);
  const restarted = await startNode(env, { echo });
  const last = acked.at(-1);
  const storeId = ids[last ? last.store : 0]!;
  const answered = await firstAnsweredSearch(restarted, storeId, benchQueries(1)[0]!);
  let checked: { problems: string[]; misses: Miss[] } = { problems: [], misses: [] };
  for (;;) {
    checked = await restarted.call<typeof checked>({ op: 'verify', layout: extra, storeIds: ids, files: acked });
    if (checked.problems.length === 0 || performance.now() - restarted.spawnedAt > CRASH_WAIT_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const whole = performance.now() - restarted.spawnedAt;
  const { problems, misses } = checked;
  print(
    `  after the crash: first search answered ${seconds(answered.wall)} from process start (${seconds(answered.cpu)} of CPU); every acknowledged file whole and found by the vector side after ${seconds(whole)} (${seconds(processCpuMs(restarted.child.pid!))} of CPU)` +
      (problems.length
        ? ` — NOT ALL (${problems.length} of ${acked.length * 2} checks): ${problems.slice(0, 5).join('; ')}`
        : ' (nothing lost)'),
  );
  // Each miss beside an exact scan: is the vector in the graph, is it its own nearest, where does the graph put it.
  if (misses.length) {
    const found = await restarted.call<MissDiagnosis[]>({ op: 'diagnose', layout: extra, storeIds: ids, misses });
    for (const d of found) {
      print(
        `    file-${d.file} chunk ${d.chunk} (id ${d.id}, shard ${d.shard}): exact self-similarity ${d.selfSimilarity?.toFixed(6)}, ` +
          `${d.exactRank} chunk(s) at or above it in an exact scan; rank in a vector search of 10: ${d.rankOf10 || 'not found'}; ` +
          `in its graph file: ${d.inGraph ?? `unknown (file at generation ${d.graphGeneration}, store at ${d.storeGeneration})`}` +
          (d.graphRank === null ? '' : `, rank in that graph alone: ${d.graphRank || 'not in the top 10'}`) +
          (d.topHit
            ? `; top hit scored ${d.topHit.score.toFixed(6)}${d.topHit.sameVector ? ' (the same vector)' : ''}: "${d.topHit.text}…"`
            : ''),
      );
    }
  }
  await restarted.exit();
}

/** Bytes of the vector tables and their indexes in PostgreSQL. */
async function postgresBytes(url: string): Promise<number> {
  const db = await PostgresDatabase.open({ url, schemas: [], poolSize: 1 });
  try {
    const row = await db.get<{ bytes: string }>(
      `SELECT SUM(pg_total_relation_size(c.oid))::text AS bytes FROM pg_class c
       WHERE c.relkind = 'r' AND c.relname IN ('vector_chunks', 'vector_files', 'vector_index_meta')`,
    );
    return Number(row?.bytes ?? 0);
  } finally {
    await db.close();
  }
}

/** `count` items of `list`, spread evenly (deterministic). */
function sample<T>(list: readonly T[], count: number, offset: number): T[] {
  const step = Math.max(1, Math.floor(list.length / count));
  return Array.from({ length: Math.min(count, list.length) }, (_, i) => list[(offset + i * step) % list.length]!);
}

const wanted = (process.env.SCALE ?? '100k,300k,1m,stores,pg-100k').split(',').map((name) => name.trim().toLowerCase());
print(`Scale benchmark — ${cpus().length} cores (${cpus()[0]?.model}), Node ${process.version}, load average ${load()} at start`);
for (const key of wanted) {
  const scenario = SCENARIOS[key];
  if (!scenario) throw new Error(`Unknown scenario '${key}' (known: ${Object.keys(SCENARIOS).join(', ')}).`);
  await run(key, scenario);
}
print(`\nFinished: load average ${load()}`);
