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
import { fileURLToPath } from 'node:url';
import { startTestPostgres, type TestPostgres } from '../packages/core/src/test/postgres';
import { BENCH_KEY, forkRole, runFathom, runUpstream } from './gateway-processes';
import { figuresTable, measurePairedRounds, type PairedSetup, pairedDifference, poolsFor, printSetups } from './paired-rounds';

const script = fileURLToPath(import.meta.url);
const SEQUENTIAL = Number(process.env.REQUESTS ?? 1000);
const CONCURRENT = Math.round(SEQUENTIAL * 1.5);
const CONCURRENCY = 16;
const ROUNDS = 3;
const PRICES = JSON.stringify({
  'bench/m': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, max_output_tokens: 1000 },
});

/** The settings of a Fathom server (a forked role): charging on or off, on SQLite or on `databaseUrl`. */
function fathomEnv(mode: string, databaseUrl: string): Record<string, string> {
  return {
    FATHOM_DEFAULT_BALANCE: '1000000',
    ...(mode === 'on' ? { FATHOM_MODEL_PRICES: PRICES } : {}),
    ...(databaseUrl !== '-' ? { FATHOM_DATABASE_URL: databaseUrl } : {}),
  };
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
  const setups: PairedSetup[] = [
    { name: `${label}: charging off`, pids: off.map((node) => node.child.pid!), pools: poolsFor(off, CONCURRENCY), key: BENCH_KEY },
    {
      name: `${label}: charging on`,
      pids: on.map((node) => node.child.pid!),
      pools: poolsFor(on, CONCURRENCY),
      key: await limitedKey(on[0]!.port),
    },
  ];
  const results = await measurePairedRounds(setups, {
    sequential: SEQUENTIAL,
    concurrent: CONCURRENT,
    concurrency: CONCURRENCY,
    rounds: ROUNDS,
  });
  const row = figuresTable(44);
  printSetups(row, results);
  const adds = pairedDifference(results, setups[0]!.name, setups[1]!.name);
  row(`${label}: charging adds (paired)`, adds.p50, adds.cpu);
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
else if (role === 'fathom') void runFathom(process.argv[3]!, fathomEnv(process.argv[4]!, process.argv[5]!));
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
