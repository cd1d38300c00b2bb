import { createFakeOpenAIUpstream, type FakeUpstream, releasePostgresForDataDir } from '@fathom/core/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServeProcess, startServeProcess } from './serve-process';

/**
 * A server process killed with SIGKILL in the middle of two streamed responses (a stored foreground one
 * and a background one), then started again over the same data: nothing stays `in_progress`, and a
 * client resuming the background stream is never handed a second run's events as the continuation of
 * the first's.
 */

const model = 'fake/gpt-test';
const slowWords = (count: number, word: string) => ({ content: Array.from({ length: count }, () => word).join(' '), delayMs: 60 });
let upstream: FakeUpstream;
let dataDir: string;
const processes: ServeProcess[] = [];

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  dataDir = mkdtempSync(join(tmpdir(), 'fathom-crash-'));
});

afterAll(async () => {
  for (const process of processes) await process.kill();
  releasePostgresForDataDir(dataDir);
  rmSync(dataDir, { recursive: true, force: true });
  await upstream?.close();
});

async function start(): Promise<{ server: ServeProcess; client: OpenAI }> {
  const server = await startServeProcess({
    dataDir,
    env: {
      FATHOM_API_KEY: 'fth_crash_key',
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_LEASE_SECONDS: '2',
    },
  });
  processes.push(server);
  return { server, client: new OpenAI({ apiKey: 'fth_crash_key', baseURL: `${server.url}/v1`, maxRetries: 0, timeout: 30_000 }) };
}

/** Reads a stream into `events` until it ends or breaks (the process dies); `seen` resolves once `ready` holds. */
function collect(
  stream: AsyncIterable<OpenAI.Responses.ResponseStreamEvent>,
  ready: (events: OpenAI.Responses.ResponseStreamEvent[]) => boolean,
) {
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  let resolveSeen!: () => void;
  const seen = new Promise<void>((resolve) => (resolveSeen = resolve));
  const done = (async () => {
    try {
      for await (const event of stream) {
        events.push(event);
        if (ready(events)) resolveSeen();
      }
    } catch {
      // The connection breaks when the process is killed.
    }
  })();
  return { events, seen, done };
}

async function until<T>(check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const itemIdOf = (event: OpenAI.Responses.ResponseStreamEvent) => (event as { item_id?: string }).item_id;

describe('a server process killed with SIGKILL mid-stream', () => {
  it('leaves no stored response in_progress, and a resumed stream never splices two runs', async () => {
    const first = await start();
    // Long enough answers that both are still streaming when the process dies, even on a loaded machine.
    upstream.push(slowWords(300, 'alpha'), slowWords(300, 'beta'));
    const foreground = collect(await first.client.responses.create({ model, input: 'Speak.', stream: true }), (events) =>
      events.some((event) => event.type === 'response.output_text.delta'),
    );
    await foreground.seen;
    const background = collect(
      await first.client.responses.create({ model, input: 'Work.', stream: true, background: true }),
      (events) => events.at(-1)!.sequence_number >= 18,
    );
    await background.seen;
    await first.server.kill();
    await Promise.all([foreground.done, background.done]);

    const foregroundId = (foreground.events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const backgroundId = (background.events[0] as OpenAI.Responses.ResponseCreatedEvent).response.id;
    const seenUpTo = 18;
    const firstRunItem = itemIdOf(background.events.find((event) => event.sequence_number === seenUpTo)!);
    expect(firstRunItem).toMatch(/^msg_/);

    // The next process answers the background response again, differently.
    upstream.push({ content: 'A second run with other words.' });
    const second = await start();

    // Resuming after event 18 of the first run: more of the first run at most, then an error; never the second run's items.
    const resumed = await second.client.responses.retrieve(backgroundId, { stream: true, starting_after: seenUpTo });
    const after: OpenAI.Responses.ResponseStreamEvent[] = [];
    // The SDK raises the stream's `error` event as an APIError.
    const told = await (async () => {
      for await (const event of resumed) after.push(event);
    })().then(
      () => null,
      (error: Error) => error,
    );
    expect(told?.message).toMatch(/restarted/);
    for (const event of after) {
      expect(event.sequence_number).toBeGreaterThan(seenUpTo);
      if (itemIdOf(event)) expect(itemIdOf(event)).toBe(firstRunItem);
    }
    // The foreground response ends failed with server_error (its client is gone; it is not run again).
    const ended = await until(async () => {
      const response = await second.client.responses.retrieve(foregroundId);
      return response.status === 'in_progress' ? undefined : response;
    }, 20_000);
    expect(ended.status).toBe('failed');
    expect(ended.error?.code).toBe('server_error');

    // A new stream of the response shows the second run whole, and it completed.
    const fresh = await second.client.responses.retrieve(backgroundId, { stream: true });
    const run: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of fresh) run.push(event);
    expect(run[0]!.type).toBe('response.created');
    expect(run.at(-1)!.type).toBe('response.completed');
    expect((await second.client.responses.retrieve(backgroundId)).output_text).toBe('A second run with other words.');
  }, 120_000);
});
