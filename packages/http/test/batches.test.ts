import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

/**
 * The Batch API through the official SDK: JSONL files in, output and error files out, each line run by
 * the same core code as the synchronous route, against a fake upstream that records every request.
 */

const chatModel = 'fake/gpt-fake';
const embedModel = 'fake/embed-fake';
let upstream: FakeUpstream;
let server: TestFathom;
/** Calls per prompt, so a prompt can fail once and then succeed. */
const seen = new Map<string, number>();
/** `lane …` requests being answered now, and the most seen at once. */
const lanes = { now: 0, most: 0 };

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream(
    (request) => {
      const prompt = String(request.messages?.at(-1)?.content ?? '');
      const count = (seen.get(prompt) ?? 0) + 1;
      seen.set(prompt, count);
      if (prompt === 'refuse me') return { error: { status: 400, message: 'the upstream refuses this prompt' } };
      if (prompt === 'flaky' && count === 1) return { error: { status: 503, message: 'busy' } };
      const delayMs = prompt.startsWith('slow') ? 150 : prompt.startsWith('lane') ? 100 : 0;
      if (prompt.startsWith('lane')) {
        lanes.now++;
        lanes.most = Math.max(lanes.most, lanes.now);
        // Fires just before the answer is written (same delay, set first).
        setTimeout(() => lanes.now--, delayMs);
      }
      return { content: `echo ${prompt}`, usage: { prompt_tokens: 10, completion_tokens: 4 }, delayMs };
    },
    { models: ['gpt-fake', 'embed-fake'], embeddingDimensions: 4 },
  );
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_BATCH_CONCURRENCY: '2',
      FATHOM_BATCH_RETRY_DELAY_MS: '10',
    },
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

function line(customId: string, url: string, body: Record<string, unknown>) {
  return JSON.stringify({ custom_id: customId, method: 'POST', url, body });
}

const chatLine = (customId: string, prompt: string) =>
  line(customId, '/v1/chat/completions', { model: chatModel, messages: [{ role: 'user', content: prompt }] });

async function upload(client: OpenAI, lines: string[], purpose: 'batch' | 'assistants' = 'batch') {
  return client.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'requests.jsonl'), purpose });
}

async function waitFor(client: OpenAI, id: string, done: (batch: OpenAI.Batch) => boolean, timeoutMs = 30_000): Promise<OpenAI.Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (done(batch)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}: ${JSON.stringify(batch)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

const finished = (batch: OpenAI.Batch) => ['completed', 'failed', 'expired', 'cancelled'].includes(batch.status);

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
    .map((text) => JSON.parse(text) as OutputLine);
}

describe('POST /v1/batches on /v1/chat/completions', () => {
  it('runs every line as the route would, retries a 503, and answers output and error files with exact counts and usage', async () => {
    const { client } = server;
    const accountId = server.fathom.bootstrap.accountId!;
    const promptTokens = async () =>
      (await server.fathom.usage.list(accountId, {})).data.find((entry) => entry.model === chatModel)?.prompt_tokens ?? 0;
    const tokensBefore = await promptTokens();
    const input = await upload(client, [
      chatLine('a', 'hello'),
      chatLine('b', 'flaky'),
      chatLine('c', 'refuse me'),
      chatLine('d', 'world'),
    ]);
    const created = await client.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
      metadata: { run: 'nightly' },
    });
    expect(created).toMatchObject({
      object: 'batch',
      status: 'validating',
      endpoint: '/v1/chat/completions',
      input_file_id: input.id,
      completion_window: '24h',
      metadata: { run: 'nightly' },
      request_counts: { total: 0, completed: 0, failed: 0 },
    });
    expect(created.expires_at).toBe(created.created_at + 86_400);

    const batch = await waitFor(client, created.id, finished);
    expect(batch.status).toBe('completed');
    expect(batch.model).toBe(chatModel);
    expect(batch.request_counts).toEqual({ total: 4, completed: 3, failed: 1 });
    expect(batch.usage).toEqual({
      input_tokens: 30,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 12,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 42,
    });
    for (const stamp of ['in_progress_at', 'finalizing_at', 'completed_at'] as const) {
      expect(batch[stamp]).toBeGreaterThanOrEqual(batch.created_at);
    }
    expect(batch.failed_at).toBeUndefined();

    const output = await jsonl(client, batch.output_file_id);
    expect(output.map((entry) => entry.custom_id).sort()).toEqual(['a', 'b', 'd']);
    for (const entry of output) {
      expect(entry).toMatchObject({ id: expect.stringMatching(/^batch_req_/), error: null, response: { status_code: 200 } });
      expect(entry.response?.request_id).toMatch(/^req_/);
      expect(entry.response?.body).toMatchObject({ object: 'chat.completion', model: chatModel });
    }
    expect(output.find((entry) => entry.custom_id === 'b')?.response?.body.choices?.[0]?.message.content).toBe('echo flaky');
    expect(seen.get('flaky')).toBe(2);

    // The refused line answers what the route answers for the same body.
    const errors = await jsonl(client, batch.error_file_id);
    expect(errors).toHaveLength(1);
    const sync = await server.request('/v1/chat/completions', {
      method: 'POST',
      json: { model: chatModel, messages: [{ role: 'user', content: 'refuse me' }] },
    });
    expect(errors[0]).toMatchObject({ custom_id: 'c', response: { status_code: sync.status, body: await sync.json() }, error: null });
    expect(sync.status).toBe(400);

    const files = await Promise.all([client.files.retrieve(batch.output_file_id!), client.files.retrieve(batch.error_file_id!)]);
    expect(files.map((file) => file.purpose)).toEqual(['batch_output', 'batch_output']);
    expect(files[0].filename).toBe(`${batch.id}_output.jsonl`);

    const listed = await client.batches.list({ limit: 10 });
    expect(listed.data.map((entry) => entry.id)).toContain(batch.id);
    expect(listed.data.find((entry) => entry.id === batch.id)).toEqual(batch);

    // Usage is recorded per line exactly as the synchronous calls record it.
    expect((await promptTokens()) - tokensBefore).toBe(30);
  });

  it("belongs to its account: another account's batch and cancel answer 404", async () => {
    const input = await upload(server.client, [chatLine('x', 'mine')]);
    const batch = await server.client.batches.create({
      input_file_id: input.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    const other = await server.newAccount();
    await expect(other.client.batches.retrieve(batch.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(other.client.batches.cancel(batch.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    await expect(
      other.client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    expect((await other.client.batches.list()).data).toEqual([]);
    await waitFor(server.client, batch.id, finished);
  });
});

describe('POST /v1/batches on /v1/embeddings and /v1/responses', () => {
  it('embeds each line through the embeddings route code, one upstream call per line', async () => {
    const { client } = server;
    const before = upstream.server.requests.filter((request) => request.path.endsWith('/embeddings')).length;
    const lines = Array.from({ length: 5 }, (_, index) =>
      line(`e${index}`, '/v1/embeddings', { model: embedModel, input: [`text ${index}`, `more ${index}`] }),
    );
    const input = await upload(client, lines);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const batch = await waitFor(client, created.id, finished);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 5, completed: 5, failed: 0 } });
    expect(batch.usage?.input_tokens).toBe(20);
    expect(batch.usage?.total_tokens).toBe(20);
    expect(batch.error_file_id).toBeUndefined();
    const output = await jsonl(client, batch.output_file_id);
    expect(output).toHaveLength(5);
    for (const entry of output) {
      expect(entry.response?.body).toMatchObject({ object: 'list', model: embedModel, data: [{ index: 0 }, { index: 1 }] });
      expect(entry.response?.body.data?.[0]?.embedding).toHaveLength(4);
    }
    expect(upstream.server.requests.filter((request) => request.path.endsWith('/embeddings')).length - before).toBe(5);
  });

  it('answers Responses lines with response objects', async () => {
    const { client } = server;
    const input = await upload(client, [
      line('r1', '/v1/responses', { model: chatModel, input: 'first' }),
      line('r2', '/v1/responses', { model: chatModel, input: 'second', store: false }),
    ]);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/responses', completion_window: '24h' });
    const batch = await waitFor(client, created.id, finished);
    expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 2, completed: 2, failed: 0 } });
    expect(batch.usage?.input_tokens).toBe(20);
    expect(batch.usage?.output_tokens).toBe(8);
    const output = await jsonl(client, batch.output_file_id);
    const byId = Object.fromEntries(output.map((entry) => [entry.custom_id, entry.response?.body]));
    expect(byId.r1).toMatchObject({ object: 'response', status: 'completed', output_text: 'echo first' });
    expect(byId.r2).toMatchObject({ object: 'response', status: 'completed', output_text: 'echo second' });
    // A stored line is a stored response, as from the route.
    const storedId = byId.r1?.id ?? '';
    expect(await client.responses.retrieve(storedId)).toMatchObject({ id: storedId, status: 'completed' });
  });
});

describe('validation', () => {
  it('refuses at create what the route can see: window, endpoint, file purpose, unknown file', async () => {
    const { client } = server;
    const input = await upload(client, [chatLine('a', 'x')]);
    const create = (body: Record<string, unknown>) => client.batches.create(body as unknown as OpenAI.BatchCreateParams);
    await expect(create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '1h' })).rejects.toMatchObject({
      status: 400,
      param: 'completion_window',
    });
    await expect(create({ input_file_id: input.id, endpoint: '/v1/completions', completion_window: '24h' })).rejects.toMatchObject({
      status: 400,
      param: 'endpoint',
    });
    const wrongPurpose = await upload(client, [chatLine('a', 'x')], 'assistants');
    await expect(
      create({ input_file_id: wrongPurpose.id, endpoint: '/v1/chat/completions', completion_window: '24h' }),
    ).rejects.toMatchObject({ status: 400, param: 'input_file_id' });
    await expect(create({ input_file_id: 'file-nope', endpoint: '/v1/chat/completions', completion_window: '24h' })).rejects.toBeInstanceOf(
      OpenAI.NotFoundError,
    );
    await expect(client.batches.retrieve('batch_nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('fails a file that cannot run, naming each line, field and problem, and sends nothing', async () => {
    const { client } = server;
    const before = upstream.requests.length;
    const input = await upload(client, [
      chatLine('ok', 'fine'),
      '{not json',
      JSON.stringify({
        method: 'POST',
        url: '/v1/chat/completions',
        body: { model: chatModel, messages: [{ role: 'user', content: 'x' }] },
      }),
      chatLine('ok', 'again'),
      line('u', '/v1/embeddings', { model: chatModel, messages: [{ role: 'user', content: 'x' }] }),
      line('m', '/v1/chat/completions', { model: chatModel }),
      line('mm', '/v1/chat/completions', { model: 'fake/other', messages: [{ role: 'user', content: 'x' }] }),
      line('s', '/v1/chat/completions', { model: chatModel, messages: [{ role: 'user', content: 'x' }], stream: true }),
      JSON.stringify({
        custom_id: 'g',
        method: 'GET',
        url: '/v1/chat/completions',
        body: { model: chatModel, messages: [{ role: 'user', content: 'x' }] },
      }),
    ]);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    const batch = await waitFor(client, created.id, finished);
    expect(batch.status).toBe('failed');
    expect(batch.failed_at).toBeGreaterThanOrEqual(batch.created_at);
    expect(batch.in_progress_at).toBeUndefined();
    expect(batch.output_file_id).toBeUndefined();
    const errors = batch.errors?.data ?? [];
    const summary = errors.map(({ line, code, param }) => ({ line, code, param }));
    expect(summary).toEqual([
      { line: 2, code: 'invalid_json_line', param: null },
      { line: 3, code: 'missing_required_parameter', param: 'custom_id' },
      { line: 4, code: 'duplicate_custom_id', param: 'custom_id' },
      { line: 5, code: 'invalid_url', param: 'url' },
      { line: 6, code: 'missing_required_parameter', param: 'body.messages' },
      { line: 7, code: 'mismatched_model', param: 'body.model' },
      { line: 8, code: 'invalid_value', param: 'body.stream' },
      { line: 9, code: 'invalid_method', param: 'method' },
    ]);
    // The body problem is worded as the route words it.
    const sync = await server.request('/v1/chat/completions', { method: 'POST', json: { model: chatModel } });
    const refusal = (await sync.json()) as { error: { message: string } };
    expect(errors[4]!.message).toBe(`Line 6: ${refusal.error.message}`);
    expect(upstream.requests.length).toBe(before);
  });

  it('fails an empty file', async () => {
    const input = await server.client.files.create({ file: await toFile(Buffer.from('\n\n'), 'empty.jsonl'), purpose: 'batch' });
    const created = await server.client.batches.create({ input_file_id: input.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const batch = await waitFor(server.client, created.id, finished);
    expect(batch).toMatchObject({ status: 'failed', errors: { object: 'list', data: [{ code: 'empty_file', line: null }] } });
  });
});

describe('concurrency', () => {
  it('two batches to one upstream share its FATHOM_BATCH_CONCURRENCY slots instead of doubling the load', async () => {
    const { client } = server;
    const batches = await Promise.all(
      ['a', 'b'].map(async (lane) => {
        const input = await upload(
          client,
          Array.from({ length: 6 }, (_, index) => chatLine(`${lane}${index}`, `lane ${lane} ${index}`)),
        );
        return client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
      }),
    );
    const done = await Promise.all(batches.map((batch) => waitFor(client, batch.id, finished)));
    for (const batch of done) expect(batch).toMatchObject({ status: 'completed', request_counts: { total: 6, completed: 6, failed: 0 } });
    // FATHOM_BATCH_CONCURRENCY is 2: each batch alone may send 2 at once, both together still 2 (not 4).
    expect(lanes.most).toBe(2);
  });
});

describe('cancel', () => {
  it('stops a running batch: cancelling, then cancelled with the output of what finished', async () => {
    const { client } = server;
    const lines = Array.from({ length: 12 }, (_, index) => chatLine(`c${index}`, `slow ${index}`));
    const input = await upload(client, lines);
    const created = await client.batches.create({ input_file_id: input.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
    await waitFor(client, created.id, (batch) => (batch.request_counts?.completed ?? 0) >= 2);
    const cancelling = await client.batches.cancel(created.id);
    expect(cancelling.status).toBe('cancelling');
    expect(cancelling.cancelling_at).toBeGreaterThanOrEqual(cancelling.created_at);
    const batch = await waitFor(client, created.id, finished);
    expect(batch.status).toBe('cancelled');
    expect(batch.cancelled_at).toBeGreaterThanOrEqual(batch.cancelling_at!);
    const counts = batch.request_counts!;
    expect(counts.total).toBe(12);
    expect(counts.completed).toBeGreaterThanOrEqual(2);
    expect(counts.completed + counts.failed).toBeLessThan(12);
    const output = await jsonl(client, batch.output_file_id);
    expect(output).toHaveLength(counts.completed);
    const errors = await jsonl(client, batch.error_file_id);
    expect(errors).toHaveLength(counts.failed);
    for (const entry of errors) expect(entry.error?.code).toBe('batch_cancelled');
    // Nothing more is sent after the cancel.
    const sent = upstream.requests.filter((request) => String(request.messages?.at(-1)?.content).startsWith('slow')).length;
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(upstream.requests.filter((request) => String(request.messages?.at(-1)?.content).startsWith('slow')).length).toBe(sent);
    // A finished batch cannot be cancelled again; a cancelled one answers as it is.
    expect((await client.batches.cancel(created.id)).status).toBe('cancelled');
    const done = await waitFor(
      client,
      (await client.batches.list({ limit: 100 })).data.find((entry) => entry.status === 'completed')!.id,
      finished,
    );
    await expect(client.batches.cancel(done.id)).rejects.toMatchObject({ status: 400 });
  });
});

describe('expiry', () => {
  it('ends a batch `expired` at the end of its window, keeping what finished and listing the rest as batch_expired', async () => {
    const short = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        FATHOM_BATCH_CONCURRENCY: '1',
        FATHOM_BATCH_WINDOW_SECONDS: '4',
      },
    });
    try {
      const lines = Array.from({ length: 60 }, (_, index) => chatLine(`x${index}`, `slow expiring ${index}`));
      const input = await upload(short.client, lines);
      const created = await short.client.batches.create({
        input_file_id: input.id,
        endpoint: '/v1/chat/completions',
        completion_window: '24h',
      });
      expect(created.expires_at).toBe(created.created_at + 4);
      const batch = await waitFor(short.client, created.id, finished);
      expect(batch.status).toBe('expired');
      expect(batch.expired_at).toBeGreaterThanOrEqual(batch.created_at);
      const counts = batch.request_counts!;
      expect(counts.total).toBe(60);
      expect(counts.completed).toBeGreaterThan(0);
      expect(counts.completed).toBeLessThan(60);
      expect(counts.completed + counts.failed).toBe(60);
      const output = await jsonl(short.client, batch.output_file_id);
      const errors = await jsonl(short.client, batch.error_file_id);
      expect(output).toHaveLength(counts.completed);
      expect(errors).toHaveLength(counts.failed);
      for (const entry of errors) expect(entry).toMatchObject({ response: null, error: { code: 'batch_expired' } });
      expect(new Set([...output, ...errors].map((entry) => entry.custom_id)).size).toBe(60);
    } finally {
      await short.close({ keepData: false });
    }
    // It starts a server of its own (on PostgreSQL a database of its own): slow on a loaded machine.
  }, 240_000);
});
