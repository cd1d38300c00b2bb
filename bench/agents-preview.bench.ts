/**
 * Agent workflow figures (issue 23, item 2):
 * - the tool preview of the workflows (1,000 / 4,000 / 16,000 agent nodes; the same as a chain
 *   of agents fed by one card), which the quadratic preview took 0.2 s / 3.1 s / 120 s for;
 * - validation and the tool preview of the largest workflow `WORKFLOW_LIMITS` allows, in each costly
 *   shape (`largestWorkflows()`), in process;
 * - the same workflows sent to a real `fathom serve` (SQLite): request time and the server's longest
 *   event-loop stall, as CPU time held and wall time (the probe of the http tests).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { previewWorkflowTools } from '../packages/core/src/agents/preview-tools.ts';
import { checkWorkflow } from '../packages/core/src/agents/validate-workflow.ts';
import { EgressGuard } from '../packages/core/src/egress/index.ts';
import { largestWorkflows, manyRoutes, pipelineWorkflow } from '../packages/core/src/test/index.ts';
import { WebhookToolkit } from '../packages/core/src/webhooks/index.ts';

const RUNS = 5;
const toolkit = new WebhookToolkit({ egress: new EgressGuard({ allow: [] }) });
const builtIns = [
  {
    definition: {
      type: 'function' as const,
      function: {
        name: 'summarize',
        description: 'Summarises a text.',
        parameters: { type: 'object', properties: { text: { type: 'string' } } },
      },
    },
    run: async () => '',
  },
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

/** Median wall and CPU ms of `work` over `runs` runs (after one warm-up run). */
async function measure(work: () => unknown, runs = RUNS): Promise<{ wall: number; cpu: number; result: unknown }> {
  let result: unknown;
  const walls: number[] = [];
  const cpus: number[] = [];
  for (let run = -1; run < runs; run++) {
    const wall = performance.now();
    const cpu = cpuMs();
    try {
      result = await work();
    } catch (error) {
      result = error;
    }
    if (run >= 0) {
      walls.push(performance.now() - wall);
      cpus.push(cpuMs() - cpu);
    }
  }
  return { wall: median(walls), cpu: median(cpus), result };
}

const outcome = (result: unknown) =>
  result instanceof Error ? `400 ${(result as { code?: string }).code}` : `${(result as { agents: unknown[] }).agents.length} agents`;

console.log("tool preview of the issue's workflows (median of 5, in process)");
const agentsOnly = (count: number) => ({
  nodes: Array.from({ length: count }, (_, i) => ({ id: `a${i}`, type: 'agent', data: { name: 'A', model: 'x/y' } })),
  edges: [],
});
for (const count of [1_000, 4_000, 16_000]) {
  for (const [shape, workflow] of [
    ['agent nodes only', agentsOnly(count)],
    ['chain fed by one card', pipelineWorkflow(count - 3, manyRoutes('r', 1))],
  ] as const) {
    const { wall, result } = await measure(() => previewWorkflowTools(workflow, toolkit, builtIns));
    console.log(
      `  ${String(count).padStart(6)} nodes, ${shape.padEnd(22)} ${(JSON.stringify({ workflow }).length / 1e6).toFixed(2)} MB  ${wall.toFixed(1).padStart(7)} ms  ${outcome(result)}`,
    );
  }
}

const shapes = largestWorkflows();
console.log('\nlargest allowed workflows (median of 5, in process): validate | preview wall / CPU | answer');
for (const [shape, workflow] of Object.entries(shapes)) {
  const body = JSON.stringify({ workflow }).length;
  const validate = await measure(() => checkWorkflow(workflow));
  const preview = await measure(() => previewWorkflowTools(workflow, toolkit, builtIns));
  const answer = JSON.stringify(preview.result).length;
  console.log(
    `  ${shape.padEnd(11)} ${String(workflow.nodes.length).padStart(4)} nodes ${String(workflow.edges.length).padStart(5)} edges ${(body / 1e6).toFixed(2)} MB | ${validate.wall.toFixed(1).padStart(5)} ms | ${preview.wall.toFixed(1).padStart(6)} / ${preview.cpu.toFixed(1).padStart(6)} ms | ${(answer / 1e6).toFixed(2)} MB`,
  );
}
await toolkit.close();

// A real server process, with the event-loop probe of the http tests.
const KEY = 'fth_bench_key';
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'fathom-bench-agents-'));
const child = spawn(
  process.execPath,
  [
    '--conditions=fathom-source',
    '--import',
    'tsx',
    '--import',
    here('../packages/http/test/event-loop-probe.ts'),
    here('../packages/http/src/cli.ts'),
    'serve',
  ],
  {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: KEY,
      FATHOM_EMBEDDER: 'hash',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  },
);
let output = '';
let onStall: (line: string) => void = () => {};
child.stdout!.on('data', (data: Buffer) => {
  output += data.toString();
  const stall = /event-loop-stall-ms ([\d.]+) cpu-ms ([\d.]+)/.exec(data.toString());
  if (stall) onStall(`${Number(stall[2]).toFixed(0)} / ${Number(stall[1]).toFixed(0)}`);
});
const url = await new Promise<string>((resolve) => {
  const timer = setInterval(() => {
    const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
    if (match) {
      clearInterval(timer);
      resolve(match[1]!);
    }
  }, 20);
});
const stall = () =>
  new Promise<string>((resolve) => {
    onStall = resolve;
    child.kill('SIGUSR2');
  });
const post = async (path: string, payload: unknown) => {
  const text = JSON.stringify(payload);
  await stall();
  const started = performance.now();
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: text,
  });
  await response.arrayBuffer();
  return `${response.status} ${(performance.now() - started).toFixed(0).padStart(5)} ms, stall ${(await stall()).padStart(9)}`;
};
console.log('\nthe same through `fathom serve` (SQLite): status, request time, longest stall CPU / wall ms (3 rounds)');
for (let round = 1; round <= 3; round++) {
  for (const [shape, workflow] of Object.entries(shapes)) {
    const preview = await post('/v1/agents/tools', { workflow });
    const save = await post('/v1/agents', { name: shape, workflow });
    console.log(`  ${round} ${shape.padEnd(11)} preview ${preview} | save ${save}`);
  }
}
const exited = new Promise((resolve) => child.once('exit', resolve));
child.kill('SIGTERM');
await exited;
rmSync(dataDir, { recursive: true, force: true });
