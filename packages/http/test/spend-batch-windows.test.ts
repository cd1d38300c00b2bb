import type { ApiKeyWithValue } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startFathom, type TestFathom } from './harness';

/*
 * A batch started by a key with rpm_limit or tpm_limit spreads its lines over the key's per-minute windows:
 * lines wait for the next minute rather than fail, and their tokens count in the key's window, so the
 * key's own requests see them.
 */

let upstream: FakeUpstream;
let server: TestFathom;
// The rate-limit windows' clock: a test starts mid-minute and moves it to the next minute itself.
let offset = 0;

beforeAll(async () => {
  // Each answer reports 100 prompt and 20 completion tokens: 120 a line.
  upstream = await createFakeOpenAIUpstream(() => ({ content: 'ok', usage: { prompt_tokens: 100, completion_tokens: 20 } }));
  server = await startFathom({
    env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }), FATHOM_BATCH_CONCURRENCY: '2' },
    clock: () => Date.now() + offset,
  });
});

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

/** Moves the windows' clock to the middle of a minute (30 s before its end). */
function midMinute() {
  offset = 60_000 - (Date.now() % 60_000) - 30_000;
}

/** A client with a new key of a new account with `limits`, and one with the account's own key (no limits) to watch the batch. */
async function keyClient(limits: Record<string, unknown>): Promise<{ client: OpenAI; owner: OpenAI }> {
  const account = await server.newAccount(10);
  const key = await json<ApiKeyWithValue>(
    await server.request('/v1/account/keys', { method: 'POST', apiKey: account.apiKey, json: { name: 'batch', ...limits } }),
  );
  return {
    client: new OpenAI({ apiKey: key.value, baseURL: server.baseURL, maxRetries: 0 }),
    owner: new OpenAI({ apiKey: account.apiKey, baseURL: server.baseURL, maxRetries: 0 }),
  };
}

async function startBatch(client: OpenAI, tag: string, count: number): Promise<OpenAI.Batch> {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({
      custom_id: `${tag}-${i}`,
      method: 'POST',
      url: '/v1/chat/completions',
      body: { model: 'fake/fake-model', messages: [{ role: 'user', content: `${tag} ${i}` }] },
    }),
  );
  const file = await client.files.create({ file: await toFile(Buffer.from(`${lines.join('\n')}\n`), 'requests.jsonl'), purpose: 'batch' });
  return client.batches.create({ input_file_id: file.id, endpoint: '/v1/chat/completions', completion_window: '24h' });
}

/** Upstream calls made for the lines tagged `tag`. */
const callsOf = (tag: string) =>
  upstream.requests.filter((request) => String(request.messages?.at(-1)?.content).startsWith(`${tag} `)).length;

/** Waits until the upstream calls of `tag` stop growing for `quietMs` (the lines left are waiting for the window). */
async function settledCalls(tag: string, quietMs = 1500, timeoutMs = 20_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let seen = callsOf(tag);
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const now = callsOf(tag);
    if (now !== seen) [seen, since] = [now, Date.now()];
    else if (now > 0 && Date.now() - since >= quietMs) return now;
  }
  throw new Error(`calls of ${tag} never settled (${seen})`);
}

async function waitFinished(client: OpenAI, id: string, timeoutMs = 20_000): Promise<OpenAI.Batch> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await client.batches.retrieve(id);
    if (['completed', 'failed', 'expired', 'cancelled'].includes(batch.status)) return batch;
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe("batch lines in the key's per-minute windows", () => {
  it('sends no more lines in a minute than rpm_limit allows, and the rest in the next minute', async () => {
    midMinute();
    // Five requests a minute: uploading the file and creating the batch take two, three lines the rest.
    const { client, owner } = await keyClient({ rpm_limit: 5 });
    const batch = await startBatch(client, 'rpm', 5);
    // Three lines in this minute; two wait (they do not fail).
    expect(await settledCalls('rpm')).toBe(3);
    expect((await owner.batches.retrieve(batch.id)).status).toBe('in_progress');
    // The batch's lines took the key's requests of this minute.
    const refused = await client.chat.completions
      .create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'direct' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);

    offset += 60_000;
    const done = await waitFinished(owner, batch.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 5, completed: 5, failed: 0 });
    expect(callsOf('rpm')).toBe(5);
  }, 45_000);

  it("spreads lines under tpm_limit and counts their tokens in the key's window", async () => {
    midMinute();
    // 120 tokens a line: a window of 300 holds at most 4 lines (each admitted while the window has room for its input).
    const { client, owner } = await keyClient({ tpm_limit: 300 });
    const batch = await startBatch(client, 'tpm', 7);
    const firstMinute = await settledCalls('tpm');
    expect(firstMinute).toBeGreaterThanOrEqual(2);
    expect(firstMinute).toBeLessThanOrEqual(4);
    expect((await owner.batches.retrieve(batch.id)).status).toBe('in_progress');
    // The lines' tokens are in the key's window: a request of the key is refused, naming tokens.
    const refused = await client.chat.completions
      .create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'direct' }] })
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(OpenAI.RateLimitError);
    expect((refused as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('x-ratelimit-remaining-tokens')).toBe('0');

    // Each later minute takes some more lines, never all of them at once, until none is left.
    let minutes = 1;
    let before = firstMinute;
    while (callsOf('tpm') < 7 && minutes < 6) {
      offset += 60_000;
      minutes++;
      const now = await settledCalls('tpm');
      expect(now - before).toBeGreaterThanOrEqual(1);
      expect(now - before).toBeLessThanOrEqual(4);
      before = now;
    }
    const done = await waitFinished(owner, batch.id);
    expect(done.status).toBe('completed');
    expect(done.request_counts).toEqual({ total: 7, completed: 7, failed: 0 });
    expect(callsOf('tpm')).toBe(7);
    expect(minutes).toBeGreaterThanOrEqual(2);
  }, 60_000);
});
