/**
 * The gateway's CPU per proxied request, beside the floor a Node gateway stands on. Four processes:
 * the fake upstream (answers at once), Fathom's server, a bare `node:http` + undici proxy that does
 * nothing but forward and re-encode (`runBareProxy`), and this load generator. Paths alternate, three
 * rounds of 3,000 requests at 64 concurrent each; CPU is read from /proc for the proxying process
 * (all its threads). Figures: req/s of each path, each proxy's throughput as a share of direct, CPU ms
 * per request, and Fathom / bare proxy (a ratio of the same run).
 */
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { BENCH_KEY, forkRole, runBareProxy, runFathom, runUpstream } from './gateway-processes';
import { processCpuMs, range } from './peers/stats';

const script = fileURLToPath(import.meta.url);

const REQUESTS = Number(process.env.REQUESTS ?? 3000);
const CONCURRENCY = 64;
const ROUNDS = 3;

interface Path {
  name: string;
  pid: number;
  pool: Pool;
  headers: Record<string, string>;
  model: string;
}

async function load(path: Path, stream: boolean): Promise<{ rate: number; cpu: number }> {
  let next = 0;
  const cpuBefore = processCpuMs(path.pid);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < REQUESTS) {
        const response = await path.pool.request({
          method: 'POST',
          path: '/v1/chat/completions',
          headers: { 'content-type': 'application/json', ...path.headers },
          body: JSON.stringify({
            model: path.model,
            messages: [{ role: 'user', content: 'Tell me about tides.' }],
            stream,
            ...(stream ? { stream_options: { include_usage: true } } : {}),
          }),
        });
        const text = await response.body.text();
        if (response.statusCode !== 200 || !text.includes(stream ? '[DONE]' : 'tide')) {
          throw new Error(`${path.name}: ${response.statusCode} ${text.slice(0, 200)}`);
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { rate: REQUESTS / seconds, cpu: (processCpuMs(path.pid) - cpuBefore) / REQUESTS };
}

async function main(): Promise<void> {
  const upstream = await forkRole(script, ['upstream']);
  const fathom = await forkRole(script, ['fathom', String(upstream.port)]);
  const bare = await forkRole(script, ['bare', String(upstream.port)]);
  const pool = (port: number) => new Pool(`http://127.0.0.1:${port}`, { connections: CONCURRENCY });
  const paths: Path[] = [
    { name: 'direct', pid: upstream.child.pid!, pool: pool(upstream.port), headers: {}, model: 'm' },
    { name: 'bare proxy', pid: bare.child.pid!, pool: pool(bare.port), headers: {}, model: 'bench/m' },
    {
      name: 'Fathom',
      pid: fathom.child.pid!,
      pool: pool(fathom.port),
      headers: { authorization: `Bearer ${BENCH_KEY}` },
      model: 'bench/m',
    },
  ];
  for (const path of paths) for (const stream of [false, true]) await load(path, stream); // warm-up
  const results = new Map<string, Array<{ rate: number; cpu: number }>>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const stream of [false, true]) {
      for (let i = 0; i < paths.length; i++) {
        const path = paths[(i + round) % paths.length]!;
        const key = `${path.name}|${stream}`;
        results.set(key, [...(results.get(key) ?? []), await load(path, stream)]);
      }
    }
  }
  console.log(`${REQUESTS} requests per path and round, ${CONCURRENCY} concurrent, ${ROUNDS} rounds, upstream answers at once`);
  console.log('mode        path         req/s          share of direct   CPU ms/request (that process)');
  for (const stream of [false, true]) {
    const of = (name: string) => results.get(`${name}|${stream}`)!;
    for (const path of paths) {
      const figures = of(path.name);
      const share = path.name === 'direct' ? '' : range(figures.map((f, round) => f.rate / of('direct')[round]!.rate));
      console.log(
        `${(stream ? 'streaming' : 'non-stream').padEnd(11)} ${path.name.padEnd(12)} ${range(
          figures.map((f) => f.rate),
          0,
        ).padEnd(14)} ${share.padEnd(17)} ${range(
          figures.map((f) => f.cpu),
          3,
        )}`,
      );
    }
    const ratio = of('Fathom').map((f, round) => f.cpu / of('bare proxy')[round]!.cpu);
    console.log(`${''.padEnd(11)} Fathom CPU / bare proxy CPU: ${range(ratio)}`);
  }
  for (const path of paths) await path.pool.close();
  fathom.child.disconnect();
  bare.child.disconnect();
  upstream.child.kill();
}

const role = process.argv[2];
if (role === 'upstream') runUpstream();
else if (role === 'fathom') void runFathom(process.argv[3]!);
else if (role === 'bare') void runBareProxy(process.argv[3]!);
else
  main().catch((error) => {
    console.error(error);
    process.exit(1);
  });
