/**
 * Ingestion benchmark (hash embedder, this machine):
 *  1. MB/s of text through extract (worker threads) + chunk (embedder tokens, 800/400).
 *  2. chunks/s through raw embedding (`embedder.embed`, batches of 64).
 *  3. ratio of end-to-end ingestion time (durable queue, extraction, chunking, embedding, index) to the
 *     raw embedding time of the same chunks (target <= 1.2).
 *  4. p99 latency of GET /v1/vector_stores/{id} while 1,000 files ingest (target < 50 ms).
 *  5. the longest event-loop stall while one big text file (BIG_MB, default 24) ingests.
 *  6. 2 and 3 again through the real transformers.js path (FATHOM_EMBEDDER=transformers, local models
 *     dir, remote models disabled) with a generated model of MiniLM-L6's compute per token
 *     (`writeTinyModel` with 384 dimensions and 9 feed-forward blocks of 384x1536: 10.6M multiply-adds
 *     per token, meaningless vectors), on the first MODEL_FILES (default 40) files of the same corpus,
 *     since each chunk costs ~50 ms of model time here.
 *  7. end-to-end ingestion of the first FILES_PG (default 300) files through the documents capability alone (no
 *     HTTP), once on SQLite and once on PostgreSQL (`PgVectorIndex`, file bytes in the database):
 *     PGlite here (PostgreSQL in WebAssembly, in this process, one session) unless
 *     FATHOM_BENCH_DATABASE_URL names a real server; a native PostgreSQL is much faster.
 *
 * Run: npm run bench -- ingest   (FILES=1000 BYTES=8000 to change the corpus)
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Worker } from 'node:worker_threads';
import {
  createEmbedder,
  documentsSchema,
  Fathom,
  loadConfig,
  PgVectorIndex,
  PostgresDatabase,
  SqliteDatabase,
  silentLogger,
  VectorIndex,
  vectorSchema,
} from '@fathom/core';
// The pipeline's parts, measured one by one (internal to the package, as in the other benches).
import { chunkText, resolveChunking, type TextChunk } from '../packages/core/src/documents/chunking';
import { DocumentsCapability } from '../packages/core/src/documents/documents-capability';
import { Ingestor } from '../packages/core/src/documents/ingestor';
import { startTestPostgres, type TestPostgres } from '../packages/core/src/test/postgres';
import { createServer } from '../packages/http/src/server';
import { seededRandom as random } from '../packages/core/src/test/seeded-random';
import { writeTinyModel } from '../packages/core/src/test/tiny-model';

const FILES = Number(process.env.FILES ?? 1000);
const BYTES = Number(process.env.BYTES ?? 8000);

const rand = random(7);
const FUNCTION_WORDS = 'the of and to in is that for it as with was on be by at this from or an are which but not have has'.split(' ');
const VOCAB = Array.from({ length: 5000 }, (_, i) => {
  let word = '';
  const length = 3 + (i % 7);
  for (let j = 0; j < length; j++) word += 'abcdefghijklmnopqrstuvwxyz'[Math.floor(random(i * 31 + j)() * 26)];
  return word;
});
function document(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  while (size < bytes) {
    const sentence: string[] = [];
    const words = 8 + Math.floor(rand() * 14);
    for (let i = 0; i < words; i++) {
      sentence.push(
        rand() < 0.4 ? FUNCTION_WORDS[Math.floor(rand() * FUNCTION_WORDS.length)]! : VOCAB[Math.floor(rand() ** 2 * VOCAB.length)]!,
      );
    }
    const text = `${sentence.join(' ')}.${rand() < 0.15 ? '\n\n' : ' '}`;
    parts.push(text);
    size += text.length;
  }
  return parts.join('');
}
const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
};

const root = mkdtempSync(join(tmpdir(), 'fathom-bench-ingest-'));
const corpusDir = join(root, 'corpus');
mkdirSync(corpusDir);
const paths: string[] = [];
let totalBytes = 0;
for (let i = 0; i < FILES; i++) {
  const text = document(BYTES);
  const path = join(corpusDir, `doc-${i}.txt`);
  writeFileSync(path, text);
  paths.push(path);
  totalBytes += Buffer.byteLength(text);
}
const env = {
  FATHOM_DATA_DIR: join(root, 'data'),
  FATHOM_EMBEDDER: 'hash',
  FATHOM_ALLOW_REMOTE_MODELS: 'false',
  FATHOM_API_KEY: 'fth_bench_ingest',
};
console.log(`corpus: ${FILES} text files, ${(totalBytes / 1e6).toFixed(1)} MB`);

// ---- 1 + 2: extract+chunk throughput, raw embedding throughput ----
const fathom = await Fathom.open({ env, logger: silentLogger });
const embedder = fathom.embedder;
const chunking = resolveChunking(undefined, embedder.maxInputTokens);
const ingestor = new Ingestor({ embedder, vectorIndex: fathom.vectorIndex });
await ingestor.extract(paths[0]!, 'warm.txt'); // start the worker
let t0 = performance.now();
const chunks: TextChunk[] = [];
const fileOfChunk: number[] = [];
const texts = await Promise.all(paths.map((path) => ingestor.extract(path, 'doc.txt')));
const extractMs = performance.now() - t0;
const t1 = performance.now();
for (const [i, text] of texts.entries()) {
  for await (const chunk of chunkText(text, embedder, chunking)) chunks.push(chunk), fileOfChunk.push(i);
}
const chunkMs = performance.now() - t1;
console.log(
  `extract+chunk: ${(totalBytes / 1e6 / ((extractMs + chunkMs) / 1000)).toFixed(1)} MB/s  (extract ${(extractMs / 1000).toFixed(2)} s, chunk ${(chunkMs / 1000).toFixed(2)} s; ${chunks.length} chunks of ${chunking.max_chunk_size_tokens}/${chunking.chunk_overlap_tokens} tokens)`,
);
// PDFs go through the worker pool (pdf-parse); their text per second, for comparison.
const { PDFDocument, StandardFonts } = await import('pdf-lib');
const pdfPaths: string[] = [];
for (let i = 0; i < 40; i++) {
  const pdf = await PDFDocument.create();
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  for (let pageNumber = 0; pageNumber < 4; pageNumber++) {
    const page = pdf.addPage();
    const lines = document(3000).match(/.{1,90}(\s|$)/g) ?? [];
    lines.slice(0, 45).forEach((line, n) => page.drawText(line.trim(), { x: 40, y: 780 - n * 16, font, size: 10 }));
  }
  const path = join(corpusDir, `doc-${i}.pdf`);
  writeFileSync(path, await pdf.save());
  pdfPaths.push(path);
}
await ingestor.extract(pdfPaths[0]!, 'warm.pdf');
t0 = performance.now();
const pdfTexts = await Promise.all(pdfPaths.map((path) => ingestor.extract(path, 'doc.pdf')));
const pdfMs = performance.now() - t0;
const pdfBytes = pdfTexts.reduce((n, text) => n + Buffer.byteLength(text), 0);
console.log(
  `PDF extraction (worker pool): ${(pdfBytes / 1e6 / (pdfMs / 1000)).toFixed(1)} MB/s of text, ${(pdfPaths.length / (pdfMs / 1000)).toFixed(0)} PDFs/s (4 pages each)`,
);
await ingestor.close();

t0 = performance.now();
const vectors: Float32Array[] = [];
for (let i = 0; i < chunks.length; i += 64)
  vectors.push(...(await embedder.embed({ values: chunks.slice(i, i + 64).map((c) => c.text) })).embeddings);
const embedMs = performance.now() - t0;
console.log(
  `raw embedding: ${(chunks.length / (embedMs / 1000)).toFixed(0)} chunks/s (${(embedMs / 1000).toFixed(2)} s for ${chunks.length} chunks, one thread)`,
);

// The index's own cost for the same chunks (VectorIndex.addFileChunks, file by file), for the breakdown.
t0 = performance.now();
for (let file = 0, i = 0; file < FILES; file++) {
  const indexed = [];
  for (; i < chunks.length && fileOfChunk[i] === file; i++) indexed.push({ ...chunks[i]!, vector: vectors[i]! });
  await fathom.vectorIndex.addFileChunks({
    storeId: 'vs_bench_raw',
    fileId: `file-${file}`,
    filename: 'doc.txt',
    attributes: null,
    chunks: indexed,
  });
}
const indexMs = performance.now() - t0;
console.log(
  `raw indexing (VectorIndex.addFileChunks): ${(chunks.length / (indexMs / 1000)).toFixed(0)} chunks/s (${(indexMs / 1000).toFixed(2)} s)`,
);
// addFileChunks returns with HNSW inserts still queued in the graph worker; let them finish so they do
// not share the cores with the end-to-end run below.
t0 = performance.now();
await (fathom.vectorIndex as VectorIndex).flush();
console.log(`  HNSW inserts still queued after it (graph worker thread): ${((performance.now() - t0) / 1000).toFixed(2)} s more`);

// ---- 3 + 4: end to end through the HTTP server, polling the store meanwhile ----
const app = await createServer(fathom);
await app.listen({ port: 0, host: '127.0.0.1' });
const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/v1`;
const headers = { authorization: 'Bearer fth_bench_ingest', 'content-type': 'application/json' };
const account = fathom.bootstrap.accountId!;
const fileIds: string[] = [];
for (const [i, text] of texts.entries()) {
  fileIds.push((await fathom.files.create(account, { filename: `doc-${i}.txt`, purpose: 'assistants', file: Buffer.from(text) })).id);
}
const store = (await (
  await fetch(`${base}/vector_stores`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench' }) })
).json()) as { id: string };
// The poller is another thread (like an external client), so its own fetch work does not queue behind
// the server's tasks: the figures are the server's latency.
const POLLER = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, headers } = workerData;
const get = async () => { const t = performance.now(); await (await fetch(url, { headers })).json(); return performance.now() - t; };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let stop = false;
parentPort.on('message', async (message) => {
  if (message === 'idle') { const out = []; for (let i = 0; i < 200; i++) { out.push(await get()); await sleep(5); } parentPort.postMessage(out); }
  if (message === 'poll') { const out = []; while (!stop) { out.push(await get()); await sleep(10); } parentPort.postMessage(out); }
  if (message === 'stop') stop = true;
});`;
const poller = new Worker(POLLER, { eval: true, workerData: { url: `${base}/vector_stores/${store.id}`, headers } });
const ask = (message: string) =>
  new Promise<number[]>((resolve) => {
    poller.once('message', resolve);
    poller.postMessage(message);
  });
const idle = await ask('idle');
const cpu0 = process.cpuUsage();
t0 = performance.now();
const polled = ask('poll');
const batch = (await (
  await fetch(`${base}/vector_stores/${store.id}/file_batches`, { method: 'POST', headers, body: JSON.stringify({ file_ids: fileIds }) })
).json()) as { id: string };
await fathom.vectorStores.fileBatches.poll(account, store.id, batch.id, { timeoutMs: 600_000 });
const e2eMs = performance.now() - t0;
const cpu = process.cpuUsage(cpu0);
poller.postMessage('stop');
const latencies = await polled;
await poller.terminate();
const counts = (await fathom.vectorStores.retrieve(account, store.id)).file_counts;
if (counts.failed > 0) {
  const failed = (await fathom.vectorStores.files.list(account, store.id, { filter: 'failed', limit: 1 })).data[0];
  console.error(`ERROR: ${counts.failed} files failed, e.g. ${JSON.stringify(failed?.last_error)}`);
  process.exitCode = 1;
}
console.log(
  `end-to-end: ${FILES} files (${counts.completed} completed, ${counts.failed} failed) in ${(e2eMs / 1000).toFixed(2)} s = ${(chunks.length / (e2eMs / 1000)).toFixed(0)} chunks/s`,
);
// CPU of every thread of this process (main, extraction workers, HNSW worker, poller) over the run.
console.log(
  `  CPU time of all threads meanwhile: ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s = ${((cpu.user + cpu.system) / 1e3 / e2eMs).toFixed(2)} of ${availableParallelism()} cores busy`,
);
console.log(`pipeline ratio (end-to-end / raw embedding): ${(e2eMs / embedMs).toFixed(2)}  (target <= 1.2)`);
console.log(`end-to-end / (raw embedding + raw indexing): ${(e2eMs / (embedMs + indexMs)).toFixed(2)}`);
console.log(
  `GET /v1/vector_stores/{id} during ingestion: ${latencies.length} requests, p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms  (target p99 < 50 ms; polled every 10 ms from another thread)`,
);
console.log(
  `  same request on the idle server (machine noise baseline): p50 ${percentile(idle, 50).toFixed(1)} ms, p99 ${percentile(idle, 99).toFixed(1)} ms`,
);

// ---- 5: one big text file (BIG_MB, default 24): the longest the event loop is held while it ingests ----
const bigText = document(Number(process.env.BIG_MB ?? 24) * 1e6);
const bigId = (await fathom.files.create(account, { filename: 'big.txt', purpose: 'assistants', file: Buffer.from(bigText) })).id;
let lastTick = performance.now();
let maxLag = 0;
const lagTimer = setInterval(() => {
  const now = performance.now();
  maxLag = Math.max(maxLag, now - lastTick - 5);
  lastTick = now;
}, 5);
t0 = performance.now();
await fetch(`${base}/vector_stores/${store.id}/files`, { method: 'POST', headers, body: JSON.stringify({ file_id: bigId }) });
await fathom.vectorStores.files.poll(account, store.id, bigId, { timeoutMs: 600_000 });
const bigMs = performance.now() - t0;
clearInterval(lagTimer);
const bigChunks = (await fathom.vectorIndex.fileChunks(store.id, bigId)).length;
console.log(
  `one ${(Buffer.byteLength(bigText) / 1e6).toFixed(0)} MB text file: ${bigChunks} chunks in ${(bigMs / 1000).toFixed(2)} s; longest event-loop stall ${maxLag.toFixed(0)} ms (5 ms timer on the main thread)`,
);

await app.close();
await fathom.close();

// ---- 6: the same ratio with a model-cost embedder through the real transformers.js path ----
// The stand-in model (see packages/core/src/test/tiny-model.ts): the tiny WordPiece tokenizer, a 384-d
// lookup, then 9 residual blocks MatMul(384x1536) -> Relu -> MatMul(1536x384), i.e. the multiply-adds
// per token of all-MiniLM-L6-v2's linear layers (no attention). Its vectors mean nothing; its cost is
// the point. Window 512 tokens like MiniLM (auto chunking: 510/255).
const MODEL_FILES = Math.min(FILES, Number(process.env.MODEL_FILES ?? 40));
const modelsDir = join(root, 'models');
const modelId = writeTinyModel(modelsDir, { modelId: 'fathom-bench/minilm-cost', dimensions: 384, maxLength: 512, layers: 9 });
const modelEnv = {
  FATHOM_DATA_DIR: join(root, 'data-model'),
  FATHOM_EMBEDDER: 'transformers',
  FATHOM_MODELS_DIR: modelsDir,
  FATHOM_EMBEDDING_MODEL: modelId,
  FATHOM_ALLOW_REMOTE_MODELS: 'false',
  FATHOM_API_KEY: 'fth_bench_ingest',
};
// Raw embedding: the embedder alone (createEmbedder, as Fathom builds it), on the chunks the pipeline
// makes, batched as the Ingestor batches them (per file, at most 64 texts and 8,192 tokens per call).
const modelEmbedder = await createEmbedder(loadConfig(modelEnv), silentLogger);
const modelChunking = resolveChunking(undefined, modelEmbedder.maxInputTokens);
const modelFiles: TextChunk[][] = [];
for (const text of texts.slice(0, MODEL_FILES)) {
  const fileChunks: TextChunk[] = [];
  for await (const chunk of chunkText(text, modelEmbedder, modelChunking)) fileChunks.push(chunk);
  modelFiles.push(fileChunks);
}
const modelChunks = modelFiles.reduce((n, fileChunks) => n + fileChunks.length, 0);
const modelTokens = modelFiles.reduce((n, fileChunks) => n + fileChunks.reduce((m, chunk) => m + chunk.tokens, 0), 0);
await modelEmbedder.embed({ values: modelFiles[0]!.slice(0, 4).map((chunk) => chunk.text) }); // warm-up
const embedCpu0 = process.cpuUsage();
t0 = performance.now();
for (const fileChunks of modelFiles) {
  for (let i = 0; i < fileChunks.length; ) {
    let end = i;
    let tokens = 0;
    while (end < fileChunks.length && end - i < 64 && (end === i || tokens + fileChunks[end]!.tokens <= 8192))
      tokens += fileChunks[end++]!.tokens;
    await modelEmbedder.embed({ values: fileChunks.slice(i, end).map((chunk) => chunk.text) });
    i = end;
  }
}
const modelEmbedMs = performance.now() - t0;
const embedCpu = process.cpuUsage(embedCpu0);
await modelEmbedder.close?.();
console.log(
  `\nmodel-cost embedder (${modelId}: 384-d, 9 x 384x1536 feed-forward blocks = 10.6M multiply-adds per token, like MiniLM-L6; transformers.js + onnxruntime-node):`,
);
console.log(
  `  corpus: first ${MODEL_FILES} files, ${modelChunks} chunks of ${modelChunking.max_chunk_size_tokens}/${modelChunking.chunk_overlap_tokens} tokens (${(modelTokens / modelChunks).toFixed(0)} tokens per chunk on average)`,
);
console.log(
  `  raw embedding: ${(modelChunks / (modelEmbedMs / 1000)).toFixed(1)} chunks/s (${(modelEmbedMs / 1000).toFixed(2)} s, ${(modelEmbedMs / modelChunks).toFixed(1)} ms per chunk; CPU ${((embedCpu.user + embedCpu.system) / 1e6).toFixed(2)} s = ${((embedCpu.user + embedCpu.system) / 1e3 / modelEmbedMs).toFixed(2)} of ${availableParallelism()} cores busy)`,
);
// End to end exactly as above: upload, one HTTP file batch, wait until every file is done.
const modelFathom = await Fathom.open({ env: modelEnv, logger: silentLogger });
const modelApp = await createServer(modelFathom);
await modelApp.listen({ port: 0, host: '127.0.0.1' });
const modelBase = `http://127.0.0.1:${(modelApp.server.address() as AddressInfo).port}/v1`;
const modelAccount = modelFathom.bootstrap.accountId!;
const modelFileIds: string[] = [];
for (const [i, text] of texts.slice(0, MODEL_FILES).entries()) {
  modelFileIds.push(
    (await modelFathom.files.create(modelAccount, { filename: `doc-${i}.txt`, purpose: 'assistants', file: Buffer.from(text) })).id,
  );
}
const modelStore = (await (
  await fetch(`${modelBase}/vector_stores`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench-model' }) })
).json()) as { id: string };
const modelCpu0 = process.cpuUsage();
t0 = performance.now();
const modelBatch = (await (
  await fetch(`${modelBase}/vector_stores/${modelStore.id}/file_batches`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ file_ids: modelFileIds }),
  })
).json()) as { id: string };
await modelFathom.vectorStores.fileBatches.poll(modelAccount, modelStore.id, modelBatch.id, { timeoutMs: 600_000 });
const modelE2eMs = performance.now() - t0;
const modelCpu = process.cpuUsage(modelCpu0);
const modelCounts = (await modelFathom.vectorStores.retrieve(modelAccount, modelStore.id)).file_counts;
let modelIndexed = 0;
for (const fileId of modelFileIds) modelIndexed += (await modelFathom.vectorIndex.fileChunks(modelStore.id, fileId)).length;
if (modelCounts.failed > 0 || modelIndexed !== modelChunks) {
  console.error(`ERROR: ${modelCounts.failed} files failed, ${modelIndexed} chunks indexed of ${modelChunks}`);
  process.exitCode = 1;
}
console.log(
  `  end-to-end: ${MODEL_FILES} files (${modelCounts.completed} completed, ${modelCounts.failed} failed, ${modelIndexed} chunks) in ${(modelE2eMs / 1000).toFixed(2)} s = ${(modelChunks / (modelE2eMs / 1000)).toFixed(1)} chunks/s`,
);
console.log(
  `  CPU time of all threads meanwhile (onnxruntime's included): ${((modelCpu.user + modelCpu.system) / 1e6).toFixed(2)} s = ${((modelCpu.user + modelCpu.system) / 1e3 / modelE2eMs).toFixed(2)} of ${availableParallelism()} cores busy`,
);
console.log(`  pipeline ratio (end-to-end / raw embedding): ${(modelE2eMs / modelEmbedMs).toFixed(2)}  (target <= 1.2)`);
await modelApp.close();
await modelFathom.close();

// ---- 7: the same ingestion on each storage backend, through the documents capability alone ----
const BACKEND_FILES = Math.min(FILES, Number(process.env.FILES_PG ?? 300));
const backendChunks = chunks.filter((_, i) => fileOfChunk[i]! < BACKEND_FILES).length;
const backendEmbedMs = (embedMs * backendChunks) / chunks.length;
console.log(
  `\nstorage backends: ${BACKEND_FILES} files (${backendChunks} chunks), Documents + the backend's index, hash embedder, no HTTP:`,
);
for (const backend of ['sqlite', 'postgres'] as const) {
  const dataDir = join(root, `data-${backend}`);
  const config = loadConfig({ ...env, FATHOM_DATA_DIR: dataDir });
  const hash = await createEmbedder(config, silentLogger);
  let server: TestPostgres | undefined;
  const db =
    backend === 'sqlite'
      ? new SqliteDatabase({ location: join(dataDir, 'fathom.db'), schemas: [documentsSchema, vectorSchema] })
      : await PostgresDatabase.open({
          url: process.env.FATHOM_BENCH_DATABASE_URL ?? (server = await startTestPostgres()).url,
          schemas: [documentsSchema, vectorSchema],
        });
  const vectorIndex =
    db instanceof SqliteDatabase
      ? new VectorIndex({ db, embedder: hash, dataDir, log: silentLogger })
      : new PgVectorIndex({ db, embedder: hash, log: silentLogger });
  const documents = new DocumentsCapability({ db, config, embedder: hash, vectorIndex, log: silentLogger });
  documents.start();
  t0 = performance.now();
  const ids: string[] = [];
  for (const [i, text] of texts.slice(0, BACKEND_FILES).entries()) {
    ids.push((await documents.files.create('acct_bench', { filename: `doc-${i}.txt`, purpose: 'assistants', file: Buffer.from(text) })).id);
  }
  const uploadMs = performance.now() - t0;
  const backendStore = await documents.vectorStores.create('acct_bench', { name: 'bench' });
  t0 = performance.now();
  await documents.vectorStores.fileBatches.create('acct_bench', backendStore.id, { file_ids: ids });
  await documents.waitForIngestion('acct_bench', [backendStore.id], 1_800_000);
  const ms = performance.now() - t0;
  const done = await documents.vectorStores.retrieve('acct_bench', backendStore.id);
  const indexed = (await vectorIndex.storeInfo(backendStore.id))?.chunks ?? 0;
  if (done.file_counts.failed > 0 || indexed !== backendChunks) {
    console.error(`ERROR: ${backend}: ${done.file_counts.failed} files failed, ${indexed} chunks indexed of ${backendChunks}`);
    process.exitCode = 1;
  }
  const label =
    backend === 'sqlite' ? 'SQLite (file bytes on disk)' : `PostgreSQL (${server ? 'PGlite' : 'server'}; file bytes in the database)`;
  console.log(
    `  ${label.padEnd(48)} uploads ${(uploadMs / 1000).toFixed(2)} s; ingestion ${(ms / 1000).toFixed(2)} s = ${(indexed / (ms / 1000)).toFixed(0)} chunks/s, ratio to raw embedding ${(ms / backendEmbedMs).toFixed(2)}`,
  );
  await documents.close();
  await vectorIndex.close();
  await hash.close?.();
  await db.close();
  await server?.close();
}
rmSync(root, { recursive: true, force: true });
