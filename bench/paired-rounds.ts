/**
 * The paired-rounds harness of the gateway benches: Fathom servers (forked roles) serve the same
 * non-streamed chat completion, `sequential` calls one after another per round (p50 as the client sees
 * it), then `concurrent` at `concurrency` (CPU ms per request of the serving processes, from /proc);
 * every setup is warmed up once, then the setups take turns for `rounds` rounds, so what one setup adds
 * over another is the paired difference of the same round.
 */
import { Pool } from 'undici';
import { processCpuMs, range } from './peers/stats';

export interface PairedSetup {
  name: string;
  /** The serving processes whose CPU is counted. */
  pids: number[];
  /** One pool per serving process; calls alternate between them. */
  pools: Pool[];
  /** The bearer key the calls are made with. */
  key: string;
}

export interface PairedOptions {
  sequential: number;
  concurrent: number;
  concurrency: number;
  rounds: number;
}

export interface RoundFigures {
  p50: number;
  cpu: number;
}

const body = JSON.stringify({ model: 'bench/m', messages: [{ role: 'user', content: 'Tell me about tides.' }] });

/** A pool per node (`connections` = the concurrency), for a setup's `pools`. */
export function poolsFor(nodes: Array<{ port: number }>, connections: number): Pool[] {
  return nodes.map((node) => new Pool(`http://127.0.0.1:${node.port}`, { connections }));
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

async function p50(setup: PairedSetup, options: PairedOptions): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < options.sequential; i++) {
    const started = performance.now();
    await call(setup.pools[i % setup.pools.length]!, setup.key);
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function cpuPerRequest(setup: PairedSetup, options: PairedOptions): Promise<number> {
  let next = 0;
  const cpu = () => setup.pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
  const before = cpu();
  await Promise.all(
    Array.from({ length: options.concurrency }, async (_, worker) => {
      while (next++ < options.concurrent) await call(setup.pools[worker % setup.pools.length]!, setup.key);
    }),
  );
  return (cpu() - before) / options.concurrent;
}

/** Warms every setup up, then runs the rounds in turn: each setup's figures, one entry per round. */
export async function measurePairedRounds(setups: PairedSetup[], options: PairedOptions): Promise<Map<string, RoundFigures[]>> {
  for (const setup of setups) {
    await p50(setup, options);
    await cpuPerRequest(setup, options);
  }
  const results = new Map<string, RoundFigures[]>();
  for (let round = 0; round < options.rounds; round++) {
    for (let i = 0; i < setups.length; i++) {
      const setup = setups[(i + round) % setups.length]!;
      const figures = { p50: await p50(setup, options), cpu: await cpuPerRequest(setup, options) };
      results.set(setup.name, [...(results.get(setup.name) ?? []), figures]);
    }
  }
  return results;
}

/** What `to` adds over `from`, round by round. */
export function pairedDifference(results: Map<string, RoundFigures[]>, from: string, to: string): { p50: number[]; cpu: number[] } {
  const a = results.get(from)!;
  const b = results.get(to)!;
  return { p50: b.map((f, round) => f.p50 - a[round]!.p50), cpu: b.map((f, round) => f.cpu - a[round]!.cpu) };
}

/** Prints the table's header and returns the printer of one row (median and range of the rounds). */
export function figuresTable(nameWidth: number): (name: string, p50s: number[], cpus: number[]) => void {
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  console.log(`${'setup'.padEnd(nameWidth)} ${'p50 ms'.padEnd(9)} ${'(rounds)'.padEnd(19)} ${'CPU ms'.padEnd(9)} (rounds)`);
  return (name, p50s, cpus) =>
    console.log(
      `${name.padEnd(nameWidth)} ${median(p50s).toFixed(3).padEnd(9)} ${range(p50s, 3).padEnd(19)} ${median(cpus).toFixed(3).padEnd(9)} ${range(cpus, 3)}`,
    );
}

/** Prints every setup's row, median and range of its rounds. */
export function printSetups(row: ReturnType<typeof figuresTable>, results: Map<string, RoundFigures[]>): void {
  for (const [name, figures] of results)
    row(
      name,
      figures.map((f) => f.p50),
      figures.map((f) => f.cpu),
    );
}
