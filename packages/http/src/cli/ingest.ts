import { createReadStream, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { FileBatchCreateParams, MAX_BATCH_FILES } from '@fathom/core';
import { SingleBar } from 'cli-progress';
import { checkValue } from '../validators';
import { embeddedAccount, openaiClient, type Target, withFathom } from './context';
import { findStores } from './stores';

/** `1 file`, `2 files`. */
const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

export interface IngestOptions {
  store: string;
  maxTokens?: string;
  overlap?: string;
}

function collect(path: string, out: string[]): void {
  const stat = statSync(path);
  if (stat.isFile()) out.push(path);
  else if (stat.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name.startsWith('.') || name === 'node_modules') continue;
      collect(join(path, name), out);
    }
  }
}

function progressBar(withChunks: boolean): SingleBar {
  const chunks = withChunks ? ' | {chunks} chunks | {rate} chunks/s' : '';
  return new SingleBar({
    format: `ingest [{bar}] {value}/{total} files${chunks} | {failed} failed | {duration_formatted}`,
    hideCursor: true,
    noTTYOutput: true,
    notTTYSchedule: 2000,
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** `fathom ingest`: uploads files into a store (created if needed) and shows progress until every file is done. */
export async function ingest(target: Target, inputs: string[], options: IngestOptions): Promise<void> {
  const paths: string[] = [];
  for (const path of inputs) collect(path, paths);
  if (paths.length === 0) throw new Error('No files found under the given paths.');
  // Checked like the API's body (sizes in range, numbers): a wrong option fails before anything is uploaded.
  const { chunking_strategy: chunking } = checkValue(
    FileBatchCreateParams,
    options.maxTokens === undefined
      ? {}
      : {
          chunking_strategy: {
            type: 'static',
            static: { max_chunk_size_tokens: options.maxTokens, chunk_overlap_tokens: options.overlap ?? '0' },
          },
        },
    { coerce: true },
  );
  if (target.mode === 'remote') return ingestRemote(target, paths, options.store, chunking);
  await withFathom(async (fathom) => {
    const { files, vectorStores } = fathom;
    const accountId = await embeddedAccount(fathom, target.account);
    const existing = await vectorStores.find(accountId, options.store);
    if (existing.length > 1)
      throw new Error(`Several vector stores are named '${options.store}': ${existing.map((s) => s.id).join(', ')}. Pass an id.`);
    const store = existing[0] ?? (await vectorStores.create(accountId, { name: options.store }));
    console.log(
      `${existing[0] ? 'Adding to' : 'Created'} vector store ${store.id} (${options.store}); ${count(paths.length, 'file')}; embedder ${fathom.embedder.id}`,
    );
    const names = new Map<string, string>();
    const fileIds: string[] = [];
    for (const path of paths) {
      const file = await files.create(accountId, { filename: basename(path), purpose: 'assistants', file: readFileSync(path) });
      names.set(file.id, path);
      fileIds.push(file.id);
    }
    for (let i = 0; i < fileIds.length; i += MAX_BATCH_FILES) {
      await vectorStores.fileBatches.create(accountId, store.id, {
        file_ids: fileIds.slice(i, i + MAX_BATCH_FILES),
        chunking_strategy: chunking,
      });
    }
    const started = Date.now();
    const bar = progressBar(true);
    bar.start(fileIds.length, 0, { chunks: 0, rate: '0', failed: 0 });
    fathom.startIngestion();
    let progress = await vectorStores.files.progress(accountId, store.id, fileIds);
    while (progress.done < progress.total) {
      await sleep(200);
      progress = await vectorStores.files.progress(accountId, store.id, fileIds);
      const seconds = (Date.now() - started) / 1000;
      bar.update(progress.done, {
        chunks: progress.chunks,
        rate: (progress.chunks / Math.max(seconds, 0.001)).toFixed(0),
        failed: progress.failed,
      });
    }
    bar.stop();
    const seconds = (Date.now() - started) / 1000;
    console.log(
      `Done in ${seconds.toFixed(1)} s: ${count(progress.total - progress.failed, 'file')}, ${count(progress.chunks, 'chunk')} (${(progress.chunks / Math.max(seconds, 0.001)).toFixed(0)} chunks/s).`,
    );
    if (progress.failed > 0) {
      console.log(`\n${progress.failed} file(s) failed:`);
      for (const fileId of fileIds) {
        const file = await vectorStores.files.retrieve(accountId, store.id, fileId);
        if (file.status !== 'completed')
          console.log(`  ${names.get(fileId)}: ${file.last_error?.code ?? file.status}: ${file.last_error?.message ?? ''}`);
      }
      process.exitCode = 1;
    }
  });
}

/** The same over the public API with the official SDK: files uploaded, then file batches polled. */
async function ingestRemote(
  target: Extract<Target, { mode: 'remote' }>,
  paths: string[],
  storeName: string,
  chunking: FileBatchCreateParams['chunking_strategy'],
): Promise<void> {
  const client = await openaiClient(target);
  const existing = await findStores(target, storeName);
  if (existing.length > 1)
    throw new Error(`Several vector stores are named '${storeName}': ${existing.map((s) => s.id).join(', ')}. Pass an id.`);
  const store = existing[0] ?? (await client.vectorStores.create({ name: storeName }));
  console.log(
    `${existing[0] ? 'Adding to' : 'Created'} vector store ${store.id} (${storeName}); ${paths.length} files; via ${target.baseUrl}`,
  );
  const names = new Map<string, string>();
  const fileIds: string[] = [];
  for (const path of paths) {
    const file = await client.files.create({ file: createReadStream(path), purpose: 'assistants' });
    names.set(file.id, path);
    fileIds.push(file.id);
  }
  const batchIds: string[] = [];
  for (let i = 0; i < fileIds.length; i += MAX_BATCH_FILES) {
    const batch = await client.vectorStores.fileBatches.create(store.id, {
      file_ids: fileIds.slice(i, i + MAX_BATCH_FILES),
      ...(chunking ? { chunking_strategy: chunking } : {}),
    });
    batchIds.push(batch.id);
  }
  const started = Date.now();
  const bar = progressBar(false);
  bar.start(fileIds.length, 0, { failed: 0 });
  let done = 0;
  let failed = 0;
  for (;;) {
    const batches = await Promise.all(batchIds.map((id) => client.vectorStores.fileBatches.retrieve(id, { vector_store_id: store.id })));
    done = batches.reduce((sum, batch) => sum + batch.file_counts.completed + batch.file_counts.failed + batch.file_counts.cancelled, 0);
    failed = batches.reduce((sum, batch) => sum + batch.file_counts.failed + batch.file_counts.cancelled, 0);
    bar.update(done, { failed });
    if (batches.every((batch) => batch.status !== 'in_progress')) break;
    await sleep(300);
  }
  bar.stop();
  console.log(`Done in ${((Date.now() - started) / 1000).toFixed(1)} s: ${count(done - failed, 'file')}.`);
  if (failed > 0) {
    console.log(`\n${failed} file(s) failed:`);
    for (const fileId of fileIds) {
      const file = await client.vectorStores.files.retrieve(fileId, { vector_store_id: store.id });
      if (file.status !== 'completed')
        console.log(`  ${names.get(fileId)}: ${file.last_error?.code ?? file.status}: ${file.last_error?.message ?? ''}`);
    }
    process.exitCode = 1;
  }
}
