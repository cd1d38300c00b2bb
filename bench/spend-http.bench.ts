/**
 * What spend control adds to a model call as a client sees it, through HTTP. Processes: the fake upstream
 * (answers at once), Fathom servers, and this load generator. Charging "off": the model has no price and the
 * key no limits (Fathom records the call, holds nothing). Charging "on": the model is priced
 * (FATHOM_MODEL_PRICES) and the calls use a key with a budget, rpm and tpm limits, so every call takes a
 * hold, checks the key's window, captures and releases. Each server serves REQUESTS sequential non-streamed
 * chat completions per round (p50 as the client sees it) then 1.5x as many at 16 concurrent (CPU ms per
 * request of the serving processes, from /proc), three rounds, alternating; the cost is the paired
 * difference per round.
 * SQLite: one server each way. PostgreSQL (PGlite over the wire in this process, unless
 * FATHOM_BENCH_DATABASE_URL names a real server): "off" is one node; "on" is two nodes sharing one
 * database, the calls alternating between them, so holds, budgets and rate limits are shared state.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { startTestPostgres, type TestPostgres } from '../packages/core/src/test/postgres';
import { BENCH_KEY, forkRole, runUpstream } from './gateway-processes';
import { processCpuMs, range } from './peers/stats';

const script = fileURLToPath(import.meta.url);
const SEQUENTIAL = Number(process.env.REQUESTS ?? 1000);
const CONCURRENT = Math.round(SEQUENTIAL * 1.5);
const CONCURRENCY = 16;
const ROUNDS = 3;
const PRICES = JSON.stringify({
  'bench/m': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, max_output_tokens: 1000 },
});

/** A Fathom server in this process (a forked role): charging on or off, on SQLite or on `databaseUrl`. */
async function runFathom(upstreamPort: string, mode: string, databaseUrl: string): Promise<void> {
  const { Fathom, silentLogger } = await import('@fathom/core');
  const { createServer } = await import('../packages/http/src/server');
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-spend-'));
  const fathom = await Fathom.open({
    logger: silentLogger,
    env: {
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: BENCH_KEY,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      FATHOM_DEFAULT_BALANCE: '1000000',
      FATHOM_PROVIDERS: JSON.stringify({ bench: { type: 'openai', baseUrl: `http://127.0.0.1:${upstreamPort}/v1` } }),
      ...(mode === 'on' ? { FATHOM_MODEL_PRICES: PRICES } : {}),
      ...(databaseUrl !== '-' ? { FATHOM_DATABASE_URL: databaseUrl } : {}),
    },
  });
  const app = await createServer(fathom);
  app.server.keepAliveTimeout = 60_000;
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('disconnect', async () => {
    await app.close();
    await fathom.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  });
  process.send!({ port: (app.server.address() as AddressInfo).port });
}

const body = JSON.stringify({ model: 'bench/m', messages: [{ role: 'user', content: 'Tell me about tides.' }] });

interface Setup {
  name: string;
  pids: number[];
  pools: Pool[];
  key: string;
}

async function call(pool: Pool, key: string): Promise<void> {
  const response = await pool.request({
    method: 'POST',
    path: '/v1/chat/completions',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body,
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`${response.statusCode} ${text.slice(0, 200)}`);
}

async function p50(setup: Setup): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < SEQUENTIAL; i++) {
    const started = performance.now();
    await call(setup.pools[i % setup.pools.length]!, setup.key);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function cpuPerRequest(setup: Setup): Promise<number> {
  let next = 0;
  const cpu = () => setup.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const before = cpu();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, worker) => {
      while (next++ < CONCURRENT) await call(setup.pools[worker % setup.pools.length]!, setup.key);
    }),
  );
  return (cpu() - before) / CONCURRENT;
}

/** A key with a budget, rpm and tpm limits, large enough never to refuse a call of the bench. */
async function limitedKey(port: number): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}/v1/account/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${BENCH_KEY}` },
    body: JSON.stringify({ name: 'bench', max_budget: 100_000, budget_duration: '30d', rpm_limit: 1_000_000, tpm_limit: 1_000_000_000 }),
  });
  const created = (await response.json()) as { value?: string };
  if (!response.ok || !created.value) throw new Error(`key: ${response.status} ${JSON.stringify(created)}`);
  return created.value;
}

type Node = Awaited<ReturnType<typeof forkRole>>;

async function compare(label: string, off: Node[], on: Node[]): Promise<void> {
  const pools = (nodes: Node[]) => nodes.map((node) => new Pool(`http://127.0.0.1:${node.port}`, { connections: CONCURRENCY }));
  const setups: Setup[] = [
    { name: `${label}: charging off`, pids: off.map((node) => node.child.pid!), pools: pools(off), key: BENCH_KEY },
    { name: `${label}: charging on`, pids: on.map((node) => node.child.pid!), pools: pools(on), key: await limitedKey(on[0]!.port) },
  ];
  for (const setup of setups) {
    await p50(setup);
    await cpuPerRequest(setup);
  }
  const results = new Map<string, Array<{ p50: number; cpu: number }>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < setups.length; i++) {
      const setup = setups[(i + round) % setups.length]!;
      const figures = { p50: await p50(setup), cpu: await cpuPerRequest(setup) };
      results.set(setup.name, [...(results.get(setup.name) ?? []), figures]);
    }
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  const row = (name: string, p50s: number[], cpus: number[]) =>
    console.log(
      `${name.padEnd(44)} ${median(p50s).toFixed(3).padEnd(9)} ${range(p50s, 3).padEnd(19)} ${median(cpus).toFixed(3).padEnd(9)} ${range(cpus, 3)}`,
    );
  console.log(`${'setup'.padEnd(44)} ${'p50 ms'.padEnd(9)} ${'(rounds)'.padEnd(19)} ${'CPU ms'.padEnd(9)} (rounds)`);
  for (const setup of setups) {
    const figures = results.get(setup.name)!;
    row(
      setup.name,
      figures.map((f) => f.p50),
      figures.map((f) => f.cpu),
    );
  }
  const a = results.get(setups[0]!.name)!;
  const b = results.get(setups[1]!.name)!;
  row(
    `${label}: charging adds (paired)`,
    b.map((f, round) => f.p50 - a[round]!.p50),
    b.map((f, round) => f.cpu - a[round]!.cpu),
  );
  for (const setup of setups) for (const pool of setup.pools) await pool.close();
}

async function main(): Promise<void> {
  const upstream = await forkRole(script, ['upstream']);
  const port = String(upstream.port);
  console.log(
    `chat completions, upstream answers at once: ${SEQUENTIAL} sequential (p50) and ${CONCURRENT} at ${CONCURRENCY} concurrent (CPU of the serving processes), ${ROUNDS} rounds`,
  );
  try {
    await bothBackends(port);
  } finally {
    upstream.child.kill();
  }
}

async function bothBackends(port: string): Promise<void> {
  const sqliteOff = await forkRole(script, ['fathom', port, 'off', '-']);
  const sqliteOn = await forkRole(script, ['fathom', port, 'on', '-']);
  await compare('SQLite', [sqliteOff], [sqliteOn]);
  for (const node of [sqliteOff, sqliteOn]) node.child.disconnect();

  if (process.env.SPEND_BENCH_POSTGRES !== '0') {
    const databases: TestPostgres[] = [];
    const database = async () => {
      if (process.env.FATHOM_BENCH_DATABASE_URL) return process.env.FATHOM_BENCH_DATABASE_URL;
      const server = await startTestPostgres();
      databases.push(server);
      return server.url;
    };
    const offUrl = await database();
    const onUrl = await database();
    const pgOff = await forkRole(script, ['fathom', port, 'off', offUrl]);
    const pgOnA = await forkRole(script, ['fathom', port, 'on', onUrl]);
    const pgOnB = await forkRole(script, ['fathom', port, 'on', onUrl]);
    await compare(`PostgreSQL (${databases.length ? 'PGlite' : 'server'})`, [pgOff], [pgOnA, pgOnB]);
    for (const node of [pgOff, pgOnA, pgOnB]) node.child.disconnect();
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const server of databases) await server.close();
  }
}

const role = process.argv[2];
if (role === 'upstream') runUpstream();
else if (role === 'fathom') void runFathom(process.argv[3]!, process.argv[4]!, process.argv[5]!);
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
