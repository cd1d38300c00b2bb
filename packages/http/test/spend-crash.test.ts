import type { LedgerPage } from '@fathom/core';
import { createFakeOpenAIUpstream, releasePostgresForDataDir, type FakeUpstream } from '@fathom/core/test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServeProcess } from './serve-process';

let upstream: FakeUpstream;

beforeAll(async () => {
  // Streams slowly (a word every 3 s): the server is killed mid-stream.
  upstream = await createFakeOpenAIUpstream(() => ({ content: 'one two three four five six seven eight nine ten', delayMs: 3000 }));
});

afterAll(async () => {
  await upstream?.close();
});

describe('a SIGKILL mid-stream', () => {
  it('leaves the hold settled once by the next process: the input cost captured, the rest released, never both, never stuck', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fathom-spend-crash-'));
    const env = {
      FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
      FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 } }),
      FATHOM_HOLD_SECONDS: '1',
    };
    try {
      const first = await startServeProcess({ dataDir, env });
      const stream = await first.client.chat.completions.create(
        { model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }], stream: true, max_tokens: 100 },
        { headers: { 'x-request-id': 'req_killed' } },
      );
      const iterator = stream[Symbol.asyncIterator]();
      await iterator.next();
      await first.kill('SIGKILL');
      const second = await startServeProcess({ dataDir, env });
      try {
        const ledger = async () =>
          (
            (await (
              await fetch(`${second.url}/v1/account/ledger?limit=100`, { headers: { authorization: `Bearer ${second.apiKey}` } })
            ).json()) as LedgerPage
          ).data.filter((entry) => entry.request_id === 'req_killed');
        const deadline = Date.now() + 30_000;
        while ((await ledger()).length < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
        const moves = await ledger();
        expect(moves.map((entry) => entry.kind).sort()).toEqual(['charge', 'release', 'reserve']);
        const hold = -moves.find((entry) => entry.kind === 'reserve')!.amount;
        expect(moves.find((entry) => entry.kind === 'release')!.amount).toBe(hold);
        // The input estimate (the request's bytes / 4) was captured: more than nothing, less than the hold.
        const charge = -moves.find((entry) => entry.kind === 'charge')!.amount;
        expect(charge).toBeGreaterThan(0);
        expect(charge).toBeLessThan(hold);
        const account = (await (
          await fetch(`${second.url}/v1/account`, { headers: { authorization: `Bearer ${second.apiKey}` } })
        ).json()) as {
          balance: number;
        };
        expect(account.balance).toBeCloseTo(100 - charge, 9);
      } finally {
        await second.stop();
      }
    } finally {
      releasePostgresForDataDir(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
