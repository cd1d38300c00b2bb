import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { Accounts } from '../accounts';
import { accountsSchema } from '../accounts/schema';
import { InsufficientBalanceError, InsufficientQuotaError, RateLimitError } from '../errors';
import { silentLogger } from '../internal/logger';
import type { MeteredCallStart } from '../models/types';
import { openTestDatabase } from '../test/postgres';
import { chargingPathOf } from './charging-path';
import { KeyRateLimits } from './key-rate-limits';
import { SqlModelCallsRepository } from './model-calls-repository';
import { SpendMeter } from './model-meter';

// SQLite's charging path: holds and windows decided in process, written behind (docs/decisions/2026-11-26-spend-holds-in-process.md).
async function setup() {
  const db = await openTestDatabase('sqlite', [accountsSchema]);
  const charging = chargingPathOf(db, silentLogger);
  const accounts = new Accounts(db, undefined, charging.pending);
  const repository = new SqlModelCallsRepository(db);
  const meter = new SpendMeter({
    db,
    accounts,
    // 0.001 per input token, 0.01 per output token: a call of 100 input tokens at most and 500 output holds 5.1.
    prices: { modelPrices: { 'openai/m': { input_cost_per_token: 0.001, output_cost_per_token: 0.01 } } },
    resolveModel: (model) => model,
    holdOutputTokens: 500,
    holdSeconds: 600,
    repository,
    holds: charging.holds(accounts, repository),
  });
  const account = await accounts.create({ name: 'a', balance: 10 });
  const call = (stream = false): MeteredCallStart => ({
    accountId: account.id,
    modelId: 'openai/m',
    inputTokensAtMost: 100,
    inputTokensEstimate: 25,
    hasOutput: true,
    stream,
  });
  const ledger = async () =>
    (
      await db.all<{ kind: string; amount_micros: number }>('SELECT kind, amount_micros FROM ledger WHERE account_id = ? ORDER BY id', [
        account.id,
      ])
    ).map((row) => row.kind);
  const calls = () => db.all<{ status: string; cost_micros: number | null }>('SELECT status, cost_micros FROM model_calls');
  return { db, charging, accounts, meter, account, call, ledger, calls };
}

describe('charging on SQLite: holds decided in process, written behind', () => {
  it('refuses a hold the balance minus the holds not yet written cannot cover, writes nothing before the answer, then one settled call', async () => {
    const { db, charging, accounts, meter, account, call, ledger, calls } = await setup();
    const first = await meter.start(call());
    // Nothing written for the hold, yet a second hold of 5.1 no longer fits the balance of 10.
    expect(await ledger()).toEqual(['credit']);
    await expect(meter.start(call())).rejects.toThrow(InsufficientQuotaError);
    await first.finish({ answered: true, usage: { prompt_tokens: 10, completion_tokens: 20 } });
    // Settled after the answer: the capture is queued, the hold still counted meanwhile.
    expect(await ledger()).toEqual(['credit']);
    await expect(meter.start(call())).rejects.toThrow(InsufficientQuotaError);
    await charging.drain();
    expect(await ledger()).toEqual(['credit', 'reserve', 'release', 'charge']);
    expect(await calls()).toEqual([{ status: 'settled', cost_micros: 210_000 }]);
    expect((await accounts.retrieve(account.id)).balance).toBeCloseTo(9.79, 9);
    expect(await accounts.ledgerSum(account.id)).toBeCloseTo(9.79, 9);
    // The hold left the book with its write: a next call fits again.
    const next = await meter.start(call());
    await next.finish({ answered: false });
    await charging.drain();
    expect((await accounts.retrieve(account.id)).balance).toBeCloseTo(9.79, 9);
    await db.close();
  });

  it('a data-tool reservation leaves the model holds not yet written untouched (one balance)', async () => {
    const { db, charging, accounts, meter, account, call } = await setup();
    const held = await meter.start(call());
    await expect(accounts.reserve(account.id, 5, 'job_1')).rejects.toThrow(InsufficientBalanceError);
    await accounts.reserve(account.id, 4.9, 'job_2');
    await held.finish({ answered: true, usage: { prompt_tokens: 10, completion_tokens: 20 } });
    await charging.drain();
    expect((await accounts.retrieve(account.id)).balance).toBeCloseTo(10 - 4.9 - 0.21, 9);
    expect(await accounts.ledgerSum(account.id)).toBeCloseTo(10 - 4.9 - 0.21, 9);
    await db.close();
  });

  it('a call still running after a few ms, and a stream at once, have their hold written before they end (a kill leaves it to the sweep)', async () => {
    const { db, charging, meter, call, ledger, calls } = await setup();
    const slow = await meter.start(call());
    await sleep(50);
    expect(await calls()).toEqual([{ status: 'held', cost_micros: 0 }]);
    expect(await ledger()).toEqual(['credit', 'reserve']);
    await slow.finish({ answered: true, usage: { prompt_tokens: 10, completion_tokens: 20 } });
    await charging.drain();
    expect(await ledger()).toEqual(['credit', 'reserve', 'release', 'charge']);
    const stream = await meter.start(call(true));
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect((await calls()).map((row) => row.status)).toEqual(['settled', 'held']);
    await stream.finish({ answered: false });
    await charging.drain();
    expect((await calls()).map((row) => row.status)).toEqual(['settled', 'settled']);
    expect(await ledger()).toEqual(['credit', 'reserve', 'release', 'charge', 'reserve', 'release']);
    await db.close();
  });

  it("counts a key's requests per minute in process, refuses past rpm_limit, and writes the counts behind", async () => {
    const { db, charging } = await setup();
    const limits = new KeyRateLimits(db, () => 120_000 + 5_000, charging.windows());
    const key = { id: 'key_1', rpm_limit: 2, tpm_limit: null };
    expect((await limits.admit(key))['x-ratelimit-remaining-requests']).toBe('1');
    expect((await limits.admit(key))['x-ratelimit-remaining-requests']).toBe('0');
    await expect(limits.admit(key)).rejects.toThrow(RateLimitError);
    expect(await db.all('SELECT requests FROM key_rate_windows')).toEqual([]);
    await charging.drain();
    expect(await db.all('SELECT key_id, window_start, requests FROM key_rate_windows')).toEqual([
      { key_id: 'key_1', window_start: 120, requests: 2 },
    ]);
    // Persisted and pending add up: still refused after the write.
    await expect(limits.admit(key)).rejects.toThrow(RateLimitError);
    await db.close();
  });
});
