import { createFakeOpenAIUpstream, type FakeUpstream, releasePostgresForDataDir } from '@fathom/core/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from './serve-process';

/**
 * A `fathom serve` process killed with SIGKILL in the middle of a batch: another process (a restart on
 * SQLite; on PostgreSQL a second node already running beside it) takes the batch over once the lease ends
 * and finishes it, and the fake upstream, which records every request, never sees a line twice.
 */

const model = 'fake/gpt-test';
const LINES = 60;
let upstream: FakeUpstream;
let dataDir: string;
const processes: ServeProcess[] = [];

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream((request) => ({
    content: `echo ${request.messages.at(-1).content}`,
    usage: { prompt_tokens: 3, completion_tokens: 2 },
    delayMs: 250,
  }));
  dataDir = mkdtempSync(join(tmpdir(), 'fathom-batch-crash-'));
});

afterAll(async () => {
  for (const process of processes) await process.kill();
  releasePostgresForDataDir(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  await upstream?.close();
});

async function start(): Promise<ServeProcess> {
  const server = await startServeProcess({
    dataDir,
    env: {
      FATHOM_API_KEY: 'fth_batch_crash_key',
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_LEASE_SECONDS: '2',
      FATHOM_BATCH_CONCURRENCY: '4',
    },
  });
  processes.push(server);
  return server;
}

async function until(client: OpenAI, id: string, done: (batch: OpenAI.Batch) => boolean, timeoutMs = 60_000): Promise<OpenAI.Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (done(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A line of a batch's output or error file. */
interface OutputLine {
  id: string;
  custom_id: string;
  response: {
    status_code: number;
    request_id: string;
    body: {
      id?: string;
      object?: string;
      model?: string;
      status?: string;
      output_text?: string;
      choices?: Array<{ message: { content: string } }>;
      data?: Array<{ index: number; embedding: number[] }>;
    };
  } | null;
  error: { code: string; message: string } | null;
}

async function jsonl(client: OpenAI, fileId: string | undefined): Promise<OutputLine[]> {
  if (!fileId) return [];
  const text = await (await client.files.content(fileId)).text();
  return text
    .split('\n')
    .filter(Boolean)
    .map((entry) => JSON.parse(entry) as OutputLine);
}

describe('a batch whose process is killed with SIGKILL', () => {
  it('is finished by another process, and no line reaches the upstream twice', async () => {
    const postgres = process.env.FATHOM_TEST_BACKEND === 'postgres';
    const first = await start();
    // On PostgreSQL a second node serves the same database beside it (started first: a start takes seconds);
    // the first one claims the batch its own request created at once. On SQLite the process restarts.
    const second = postgres ? await start() : undefined;
    const lines = Array.from({ length: LINES }, (_, index) =>
      JSON.stringify({
        custom_id: `line-${index}`,
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model, messages: [{ role: 'user', content: `prompt ${index}` }] },
      }),
    );
    const input = await first.client.files.create({ file: await toFile(Buffer.from(lines.join('\n')), 'batch.jsonl'), purpose: 'batch' });
    const created = await first.client.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await until(first.client, created.id, (batch) => (batch.request_counts?.completed ?? 0) >= 8);
    await first.kill();
    const sentBeforeKill = upstream.requests.length;
    const next = second ?? (await start());

    const batch = await until(next.client, created.id, (entry) => entry.status === 'completed');
    const counts = batch.request_counts!;
    expect(counts.total).toBe(LINES);
    expect(counts.completed + counts.failed).toBe(LINES);

    // The batch was cut mid-way: the next process sent the rest.
    expect(sentBeforeKill).toBeLessThan(LINES);
    expect(upstream.requests.length).toBeGreaterThan(sentBeforeKill);
    const prompts = upstream.requests.map((request) => request.messages.at(-1).content as string);
    expect(new Set(prompts).size).toBe(prompts.length);
    const output = await jsonl(next.client, batch.output_file_id);
    const errors = await jsonl(next.client, batch.error_file_id);
    expect(output).toHaveLength(counts.completed);
    expect(errors).toHaveLength(counts.failed);
    // Only the requests in flight at the kill (at most the concurrency) are reported, not sent again.
    expect(counts.failed).toBeLessThanOrEqual(4);
    for (const entry of errors) expect(entry).toMatchObject({ response: null, error: { code: 'batch_interrupted' } });
    expect(new Set([...output, ...errors].map((entry) => entry.custom_id)).size).toBe(LINES);
    for (const entry of output) expect(entry.response?.body.choices?.[0]?.message.content).toBe(`echo prompt ${entry.custom_id.slice(5)}`);
    // Every answered line was sent once; every interrupted one at most once.
    expect(prompts.length).toBeGreaterThanOrEqual(counts.completed);
    expect(prompts.length).toBeLessThanOrEqual(LINES);
    expect(batch.usage?.input_tokens).toBe(3 * counts.completed);
  }, 300_000);
});
