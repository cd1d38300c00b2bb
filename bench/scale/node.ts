/**
 * The node under test of `bench/scale.bench.ts`: a Fathom server process (`Fathom.open` + the HTTP
 * server, as `fathom serve` runs them) over the data dir (or PostgreSQL) the environment names, with the
 * benchmark's embedder. The bench drives it over IPC: ingest chunks through `vectorIndex.addFileChunks`
 * (the ingestion queue's last step, without extraction), measure search latency and recall in-process,
 * check what survived a crash. Its RSS is read by the bench from /proc.
 */
import { type AttributeFilter, Fathom, VectorIndex } from '../../packages/core/src';
import { createServer } from '../../packages/http/src/server';
import { benchQueries, fileAttributes, fileNumber, fileTexts, type Layout, TopicAverageEmbedder } from './corpus';
import { diagnoseMisses } from './diagnose';

export type NodeCommand =
  | { op: 'create-stores'; count: number }
  | { op: 'ingest'; layout: Layout; storeIds: string[]; fromStore: number; toStore: number; fromFile?: number; ackEachFile?: boolean }
  | { op: 'flush' }
  /** Waits until the keyword index has no FTS5 segments left to merge (SQLite; at most `timeoutMs`); answers the ms waited. */
  | { op: 'settle'; timeoutMs: number }
  | {
      op: 'latency';
      storeIds: string[];
      queries: number;
      modes: Mode[];
      maxNumResults: number;
      /** The `part` the filter of query i keeps (default i % 7). */
      filterParts?: number[];
      warmUp?: boolean;
    }
  /** `filters[i]`: the attribute filter of query i (none: the whole store). */
  | { op: 'recall'; storeId: string; queries: string[]; filters?: AttributeFilter[] }
  | { op: 'verify'; layout: Layout; storeIds: string[]; files: Array<{ store: number; index: number }> }
  | { op: 'diagnose'; layout: Layout; storeIds: string[]; misses: Miss[] }
  | { op: 'graphs' }
  | { op: 'exit' };

/** A chunk the crash check did not find as the top vector hit for its own text. */
export interface Miss {
  store: number;
  index: number;
  chunk: number;
}

export type Mode = 'vector' | 'keyword' | 'hybrid' | 'hybrid+filter';

export type NodeMessage =
  | { ready: string; accountId: string; startedAt: number }
  | { log: string }
  | { progress: number }
  | { acked: { store: number; index: number } }
  | { result: unknown }
  | { error: string };

const send = (message: NodeMessage) => process.send!(message);
const embedder = new TopicAverageEmbedder();
const fathom = await Fathom.open({
  embedder,
  start: false,
  logger: {
    info: (message) => send({ log: message }),
    warn: (message) => send({ log: message }),
    error: (message) => send({ log: message }),
  },
});
// What `start()` does for the index (the rest of it, the ingestion queue and the runners, stays off here).
void fathom.vectorIndex.preload();
const server = await createServer(fathom);
const url = await server.listen({ port: 0, host: '127.0.0.1' });
const accountId = fathom.bootstrap.accountId!;
send({ ready: url, accountId, startedAt: Date.now() });

async function ingest(command: Extract<NodeCommand, { op: 'ingest' }>): Promise<{ chunks: number; seconds: number }> {
  const { layout } = command;
  const started = performance.now();
  let chunks = 0;
  for (let store = command.fromStore; store < command.toStore; store++) {
    for (let index = command.fromFile ?? 0; index < layout.filesPerStore; index++) {
      const file = fileNumber(layout, store, index);
      const texts = fileTexts(file, layout.chunksPerFile);
      const { embeddings } = await embedder.embed({ values: texts });
      await fathom.vectorIndex.addFileChunks({
        storeId: command.storeIds[store]!,
        fileId: `file-${file}`,
        filename: `doc-${file}.txt`,
        attributes: fileAttributes(file),
        chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
      });
      chunks += texts.length;
      if (command.ackEachFile) send({ acked: { store, index } });
      // Yield like the ingestion queue between files, so searches and timers run.
      await new Promise((resolve) => setImmediate(resolve));
      if (file % 100 === 99) send({ progress: chunks });
    }
  }
  return { chunks, seconds: (performance.now() - started) / 1000 };
}

/** The `recall` op's answer: per query its vector-side hits and the CPU time of its search (ms, every thread). */
export interface RecallAnswer {
  hits: Array<Array<{ file_id: string; text: string }>>;
  cpu: number[];
}

/** Per mode: wall time and CPU time of the process (all threads) per search, in ms. */
export type Latencies = Record<Mode, { wall: number[]; cpu: number[] }>;

/**
 * Latency of each mode, query by query, the modes taking turns (so background load hits all alike). CPU
 * time (user + system of every thread of this process) is what a loaded machine disturbs least.
 */
async function latency(command: Extract<NodeCommand, { op: 'latency' }>): Promise<Latencies> {
  const queries = benchQueries(command.queries);
  const times = Object.fromEntries(command.modes.map((mode) => [mode, { wall: [], cpu: [] }])) as unknown as Latencies;
  const search = (i: number, mode: Mode) =>
    fathom.vectorIndex.search([command.storeIds[i % command.storeIds.length]!], {
      query: queries[i]!,
      mode: mode === 'hybrid+filter' ? 'hybrid' : mode,
      maxNumResults: command.maxNumResults,
      ...(mode === 'hybrid+filter' ? { filters: { type: 'eq' as const, key: 'part', value: command.filterParts?.[i] ?? i % 7 } } : {}),
    });
  if (command.warmUp !== false) {
    for (let i = 0; i < Math.min(20, queries.length); i++) for (const mode of command.modes) await search(i, mode);
    // The keyword planner's copy of the vocabulary is read by a background scan after the first search
    // (4 s of a worker at 1M chunks); until it ends, each new word is looked up in FTS5 (ms for a common
    // one). The steady state is measured after it; the restart phase measures the first searches.
    // SQLite's keyword side only: PostgreSQL's has no vocabulary copy to wait for.
    const { keywords } = fathom.vectorIndex as unknown as { keywords: { vocabularyScanned?(): Promise<boolean> } };
    await keywords.vocabularyScanned?.();
  }
  for (let i = 0; i < queries.length; i++) {
    for (let turn = 0; turn < command.modes.length; turn++) {
      const mode = command.modes[(i + turn) % command.modes.length]!;
      const cpu = process.cpuUsage();
      const started = performance.now();
      await search(i, mode);
      times[mode].wall.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      times[mode].cpu.push((used.user + used.system) / 1000);
    }
  }
  return times;
}

/**
 * After a large ingestion the keyword index merges its FTS5 segments in the background once writes stop
 * (`FtsMerges`: ~30 s at 1M chunks), and searches are slower meanwhile. The latency phase measures the steady
 * state after it; the wait is reported. PostgreSQL has nothing to wait for.
 */
async function settle(timeoutMs: number): Promise<{ waitedMs: number; settled: boolean }> {
  const started = performance.now();
  const { keywords } = fathom.vectorIndex as unknown as { keywords?: { merges?: { needsMerge(): boolean; settled(): Promise<void> } } };
  const merges = keywords?.merges;
  if (!merges) return { waitedMs: 0, settled: true };
  while (merges.needsMerge() && performance.now() - started < timeoutMs) await new Promise((resolve) => setTimeout(resolve, 500));
  await merges.settled();
  return { waitedMs: performance.now() - started, settled: !merges.needsMerge() };
}

async function handle(command: NodeCommand): Promise<unknown> {
  switch (command.op) {
    case 'create-stores': {
      const ids: string[] = [];
      for (let i = 0; i < command.count; i++) ids.push((await fathom.vectorStores.create(accountId, { name: `scale-${i}` })).id);
      return ids;
    }
    case 'ingest':
      return ingest(command);
    case 'flush':
      return fathom.vectorIndex instanceof VectorIndex ? fathom.vectorIndex.flush() : undefined;
    case 'settle':
      return settle(command.timeoutMs);
    case 'latency':
      return latency(command);
    case 'recall': {
      // Vector-side hits of each query, as (file id, text), and the CPU time of each search (every thread, ms).
      const { hits, cpu }: RecallAnswer = { hits: [], cpu: [] };
      for (const [i, query] of command.queries.entries()) {
        const filters = command.filters?.[i];
        const before = process.cpuUsage();
        const found = await fathom.vectorIndex.search([command.storeId], {
          query,
          mode: 'vector',
          maxNumResults: 8,
          ...(filters ? { filters } : {}),
        });
        const used = process.cpuUsage(before);
        cpu.push((used.user + used.system) / 1000);
        hits.push(found.map((hit) => ({ file_id: hit.file_id, text: hit.content[0]!.text })));
      }
      return { hits, cpu };
    }
    case 'verify': {
      // Each file's rows are all there, and its chunks are found by the vector side (the top hit for their own text).
      const problems: string[] = [];
      const misses: Miss[] = [];
      for (const { store, index } of command.files) {
        const file = fileNumber(command.layout, store, index);
        const texts = fileTexts(file, command.layout.chunksPerFile);
        const stored = await fathom.vectorIndex.fileChunks(command.storeIds[store]!, `file-${file}`);
        if (stored.length !== texts.length) problems.push(`file-${file}: ${stored.length} of ${texts.length} chunks`);
        for (const chunk of [0, texts.length - 1]) {
          const [hit] = await fathom.vectorIndex.search([command.storeIds[store]!], {
            query: texts[chunk]!,
            mode: 'vector',
            maxNumResults: 1,
          });
          if (hit?.content[0]?.text !== texts[chunk]) {
            problems.push(`file-${file} chunk ${chunk}: not found by vector search`);
            misses.push({ store, index, chunk });
          }
        }
      }
      return { problems, misses };
    }
    case 'diagnose':
      return diagnoseMisses(fathom, embedder, command);
    case 'graphs':
      return fathom.vectorIndex instanceof VectorIndex ? fathom.vectorIndex.graphsInMemory() : null;
    case 'exit':
      await server.close();
      await fathom.close();
      process.exit(0);
  }
}

process.on('message', (command: NodeCommand) => {
  handle(command).then(
    (result) => send({ result: result ?? null }),
    (error: Error) => send({ error: error.stack ?? error.message }),
  );
});
