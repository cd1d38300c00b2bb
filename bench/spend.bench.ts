/**
 * What spend control adds to one model call on SQLite, measured at the seam every call passes: the meter's
 * hold and capture (two transactions: balance, key budget, ledger rows, the call's row) and a key's rate-limit
 * window (one upsert), against a free model (one settled row). CPU per call is the process's user+system time
 * over the calls. Target: < 0.2 ms added p50 on SQLite for the rate limit; the hold and capture are reported.
 * On SQLite the hold is decided in process and the writes go behind the answer (one commit, at the next
 * `setImmediate`): "on the path" times `start` + `finish` and lets the write run untimed after each call (its
 * CPU counted); "with its write" also times the commit.
 */
import { Fathom, silentLogger, withCallContext } from '@fathom/core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const COUNT = 3000;
const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-spend-'));
const fathom = await Fathom.open({
  env: {
    FATHOM_DATA_DIR: dataDir,
    FATHOM_EMBEDDER: 'hash',
    FATHOM_ALLOW_REMOTE_MODELS: 'false',
    FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1' } }),
    FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/priced': { input_cost_per_token: 1.5e-7, output_cost_per_token: 6e-7 } }),
  },
  logger: silentLogger,
  start: false,
});
const account = await fathom.accounts.create({ name: 'bench', balance: 1_000_000 });
const key = await fathom.accounts.keys.create(account.id, { rpm_limit: 1_000_000_000, tpm_limit: 1_000_000_000, max_budget: 100_000 });
const grant = (await fathom.accounts.authenticateKey(key.value))!.key;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

async function measure(name: string, call: () => Promise<unknown>, after: () => Promise<unknown> = nextTurn) {
  for (let i = 0; i < 300; i++) await call().then(after);
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < COUNT; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
    // What the call queued behind its answer is written here, untimed (its CPU counted).
    await after();
  }
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(44)} p50 ${percentile(times, 50).toFixed(3)} ms  p99 ${percentile(times, 99).toFixed(3)} ms  CPU ${((used.user + used.system) / 1000 / COUNT).toFixed(3)} ms/call`,
  );
}

const call = (model: string) => () =>
  withCallContext({ requestId: 'req_bench', keyId: grant.id, api: 'models' }, async () => {
    const metered = await fathom.spend.start({
      accountId: account.id,
      modelId: model,
      inputTokensAtMost: 400,
      inputTokensEstimate: 100,
      maxOutputTokens: 256,
      hasOutput: true,
    });
    await metered.finish({ answered: true, usage: { prompt_tokens: 100, completion_tokens: 20 } });
  });

await measure('free model (one usage row)', call('fake/free'));
await measure('priced model: on the path (hold, capture queued)', call('fake/priced'));
await measure('priced model: with its write (one commit)', () => call('fake/priced')().then(nextTurn));
await measure('key rate limit window (rpm + tpm)', () => fathom.rateLimits.admit(grant));
await new Promise((resolve) => setTimeout(resolve, 300));
console.log(
  `ledger sums to the balance: ${(await fathom.accounts.ledgerSum(account.id)) === (await fathom.accounts.retrieve(account.id)).balance}`,
);
await fathom.close();
rmSync(dataDir, { recursive: true, force: true });
