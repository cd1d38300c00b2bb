import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { openaiClient, type Target } from './context';
import { formatTime, printJson, printTable } from './output';

/** Batches run inside a server (its lease queue), so these commands always talk to one. */
function remote(target: Target): Extract<Target, { mode: 'remote' }> {
  if (target.mode === 'remote') return target;
  throw new Error(
    'Batches run inside a Fathom server: pass --base-url (or FATHOM_BASE_URL) and --api-key, or start `fathom serve` on this data dir and pass --api-key.',
  );
}

function printBatch(batch: OpenAI.Batches.Batch): void {
  const counts = batch.request_counts;
  printTable(
    ['ID', 'STATUS', 'ENDPOINT', 'DONE', 'FAILED', 'TOTAL', 'CREATED', 'OUTPUT', 'ERRORS'],
    [
      [
        batch.id,
        batch.status,
        batch.endpoint,
        counts?.completed ?? 0,
        counts?.failed ?? 0,
        counts?.total ?? 0,
        formatTime(batch.created_at),
        batch.output_file_id ?? '—',
        batch.error_file_id ?? '—',
      ],
    ],
  );
  for (const error of batch.errors?.data ?? []) console.log(`line ${error.line ?? '?'}: ${error.message ?? error.code}`);
}

/** `fathom batches create <file>`: uploads a JSONL file (purpose `batch`) and starts a batch over it. */
export async function createBatch(target: Target, path: string, endpoint: string, json: boolean): Promise<void> {
  const client = await openaiClient(remote(target));
  const file = await client.files.create({ file: await toFile(createReadStream(path), basename(path)), purpose: 'batch' });
  const batch = await client.batches.create({
    input_file_id: file.id,
    endpoint: endpoint as OpenAI.Batches.BatchCreateParams['endpoint'],
    completion_window: '24h',
  });
  if (json) return printJson(batch);
  printBatch(batch);
}

/** `fathom batches get <id>`: a batch's status and counts (and, when it failed, its line errors). */
export async function getBatch(target: Target, id: string, json: boolean): Promise<void> {
  const batch = await (await openaiClient(remote(target))).batches.retrieve(id);
  if (json) return printJson(batch);
  printBatch(batch);
}

/** `fathom batches list`: the account's batches, newest first. */
export async function listBatches(target: Target, json: boolean): Promise<void> {
  const client = await openaiClient(remote(target));
  const batches: OpenAI.Batches.Batch[] = [];
  for await (const batch of client.batches.list({ limit: 100 })) batches.push(batch);
  if (json) return printJson(batches);
  if (batches.length === 0) return console.log('No batches.');
  printTable(
    ['ID', 'STATUS', 'ENDPOINT', 'DONE', 'FAILED', 'TOTAL', 'CREATED'],
    batches.map((batch) => [
      batch.id,
      batch.status,
      batch.endpoint,
      batch.request_counts?.completed ?? 0,
      batch.request_counts?.failed ?? 0,
      batch.request_counts?.total ?? 0,
      formatTime(batch.created_at),
    ]),
  );
}

/** `fathom batches cancel <id>`: stops a batch; what finished stays in its output file. */
export async function cancelBatch(target: Target, id: string, json: boolean): Promise<void> {
  const batch = await (await openaiClient(remote(target))).batches.cancel(id);
  if (json) return printJson(batch);
  printBatch(batch);
}
