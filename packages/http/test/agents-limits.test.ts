import { FATHOM_SCHEMAS, WORKFLOW_LIMITS, type Workflow } from '@fathom/core';
import {
  createFakeOpenAIUpstream,
  type FakeUpstream,
  fanOutWorkflow,
  largestAllowed,
  largestWorkflows,
  manyRoutes,
  pipelineWorkflow,
  postgresForDataDir,
  releasePostgresForDataDir,
} from '@fathom/core/test';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli } from './built-cli';
import type { ErrorBody } from './harness';

/**
 * Longest the server may hold its event loop while it handles one of the largest allowed workflows
 * (issue 23): the CPU time it spends in its longest stall. The wall time of a stall also holds
 * whatever time the OS gave other processes, which on the shared 2-core test machines (other test runs
 * beside this one) is several times the server's own; it must stay under `MAX_WALL_STALL_MS`, which a
 * merely busy machine does not reach and the quadratic preview this guards against (minutes) passes.
 */
const MAX_STALL_MS = 100;
const MAX_WALL_STALL_MS = 1_000;
const KEY = 'fth_limits_key';
// Plain JavaScript, so the server loads it and the test run's build of the CLI without tsx.
const probe = fileURLToPath(new URL('./event-loop-probe.mjs', import.meta.url));

/**
 * A real `fathom serve` process with the event-loop probe loaded. Only the server runs in it: the
 * test's own JSON work and, on the http-postgres project, PGlite stay in the test process, so the
 * probe measures what the server does with a request and nothing else.
 */
interface Stall {
  wallMs: number;
  cpuMs: number;
}

interface ServeProcess {
  url: string;
  post(path: string, body: string): Promise<{ status: number; body: any }>;
  /** The server's stalls since the previous call: the longest one's wall time, and the most CPU time spent in one. */
  stalls(): Promise<Stall>;
  stop(): Promise<void>;
}

async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-limits-'));
  const databaseUrl = process.env.FATHOM_TEST_BACKEND === 'postgres' ? await postgresForDataDir(dataDir, FATHOM_SCHEMAS) : undefined;
  const child: ChildProcess = spawn(process.execPath, ['--import', probe, await builtCli(), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: KEY,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      ...(databaseUrl ? { FATHOM_DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stalls: Stall[] = [];
  let stallArrived: () => void = () => {};
  child.stdout!.on('data', (data: Buffer) => {
    output += data.toString();
    for (const match of data.toString().matchAll(/event-loop-stall-ms ([\d.]+) cpu-ms ([\d.]+)/g)) {
      stalls.push({ wallMs: Number(match[1]), cpuMs: Number(match[2]) });
      stallArrived();
    }
  });
  child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
      if (match) {
        clearInterval(timer);
        resolve(match[1]!);
      }
    }, 20);
    child.once('exit', (code) => reject(new Error(`fathom serve exited (${code}):\n${output}`)));
  });
  const readStalls = async () => {
    const arrived = new Promise<void>((resolve) => (stallArrived = resolve));
    child.kill('SIGUSR2');
    await arrived;
    return stalls.shift()!;
  };
  return {
    url,
    async post(path, body) {
      const response = await fetch(`${url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
      });
      // Read as text and parse here: the answer's size is not what is being measured.
      return { status: response.status, body: JSON.parse(await response.text()) };
    },
    stalls: readStalls,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      releasePostgresForDataDir(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('agent workflows: size limits and a responsive server (issue 23, item 2)', () => {
  let upstream: FakeUpstream;
  let server: ServeProcess;
  let shapes: Record<string, Workflow>;
  beforeAll(async () => {
    upstream = await createFakeOpenAIUpstream(() => ({ content: 'done' }));
    server = await startServe({ FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) });
    shapes = largestWorkflows();
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await upstream?.close();
  });

  /** POSTs a body serialized beforehand and answers with the server's stalls meanwhile. */
  async function timed(path: string, payload: unknown): Promise<{ status: number; body: any; stall: Stall }> {
    const text = JSON.stringify(payload);
    await server.stalls();
    const answer = await server.post(path, text);
    return { ...answer, stall: await server.stalls() };
  }

  /**
   * `timed`, repeated (up to three times) while the server held its loop past the limit: the first
   * time a large workflow takes a code path, V8 has not optimized it yet. Work that holds the loop past
   * the limit every time is still caught.
   */
  async function bestOfThree(path: string, payload: unknown): Promise<{ status: number; body: any; stall: Stall }> {
    let best = await timed(path, payload);
    for (let attempt = 1; attempt < 3 && best.stall.cpuMs >= MAX_STALL_MS; attempt++) {
      const again = await timed(path, payload);
      if (again.stall.cpuMs < best.stall.cpuMs) best = again;
    }
    return best;
  }

  function expectResponsive(stall: Stall, step: string): void {
    expect(stall.cpuMs, `${step}: CPU ms the server held its event loop`).toBeLessThan(MAX_STALL_MS);
    expect(stall.wallMs, `${step}: wall ms its event loop stalled`).toBeLessThan(MAX_WALL_STALL_MS);
  }

  it('previews, saves, updates, publishes and runs the largest workflow of each costly shape, never holding the server for 100 ms', async () => {
    // A first small request, as any server has served before a large one.
    expect((await timed('/v1/agents/tools', { workflow: fanOutWorkflow(1, manyRoutes('warm', 2)) })).status).toBe(200);
    for (const [shape, workflow] of Object.entries(shapes)) {
      const steps: Record<string, { status: number; body: any; stall: Stall }> = {};
      steps.preview = await bestOfThree('/v1/agents/tools', { workflow });
      expect(steps.preview.status, shape).toBe(200);
      expect(steps.preview.body.validation_error, shape).toBeNull();
      steps.save = await bestOfThree('/v1/agents', { name: `Largest ${shape}`, workflow });
      expect(steps.save.status, shape).toBe(200);
      const id: string = steps.save.body.agent.id;
      steps.update = await bestOfThree(`/v1/agents/${id}`, { workflow: steps.save.body.agent.workflow });
      expect(steps.update.status, shape).toBe(200);
      steps.publish = await bestOfThree(`/v1/agents/${id}/publish`, {});
      expect(steps.publish.status, shape).toBe(200);
      if (workflow.nodes.filter((node) => node.type === 'agent').length <= 20) {
        // Starting a run builds every agent's tools; each model call carries them all.
        steps.run = await bestOfThree(`/v1/agents/${id}/run`, { message: 'Go.' });
        expect(steps.run.body.run?.status ?? steps.run.body, shape).toBe('completed');
      }
      const figures = Object.entries(steps).map(([step, { stall }]) => `${step} ${stall.cpuMs.toFixed(0)}/${stall.wallMs.toFixed(0)}`);
      for (const [step, { stall }] of Object.entries(steps))
        expectResponsive(stall, `${shape} ${step} (CPU/wall ms: ${figures.join(', ')})`);
    }
  }, 300_000);

  it('answers the tool preview of the largest pipeline with every tool for every agent, as a run would send them', async () => {
    const workflow = shapes.pipeline!;
    const { status, body } = await server.post('/v1/agents/tools', JSON.stringify({ workflow }));
    expect(status).toBe(200);
    const agents = workflow.nodes.filter((node) => node.type === 'agent').length;
    const routes = (workflow.nodes.find((node) => node.type === 'webhook') as any).data.config.routes.length;
    expect(body.agents).toHaveLength(agents);
    for (const agent of body.agents) {
      expect(agent.cards).toEqual(['card']);
      // The built-in summarize, then every route of the card.
      expect(agent.tools).toHaveLength(routes + 1);
    }
    const last = body.agents.at(-1);
    expect(last.sources).toMatchObject({ summarize: 'built-in', r_0: 'card' });
    expect(last.tools[1]).toEqual({
      type: 'function',
      function: {
        name: 'r_0',
        description: 'Reads r record 0.\n\nWHEN TO USE: When the user names one.',
        parameters: { type: 'object', properties: { p0: { type: 'string', description: 'Field 0' } }, required: ['p0'] },
      },
    });
    expect(JSON.stringify(body)).not.toContain('sk-large');
  });

  const error = (answer: { body: unknown }) => (answer.body as ErrorBody).error;

  it('refuses a workflow past each count with a 400 naming the array, on save, update and preview alike, at once', async () => {
    const { nodes, edges, routes, parameters } = WORKFLOW_LIMITS;
    const tooManyNodes = pipelineWorkflow(nodes - 2, manyRoutes('r', 1));
    const tooManyEdges = fanOutWorkflow(Math.ceil((edges + 1) / 3), manyRoutes('r', 1));
    const tooManyRoutes = fanOutWorkflow(1, manyRoutes('r', routes / 2));
    tooManyRoutes.nodes.push({
      id: 'second',
      type: 'webhook',
      data: { name: 'Second', config: { baseUrl: 'https://b.example.com', routes: manyRoutes('s', routes / 2 + 1) } },
    });
    const tooManyParameters = fanOutWorkflow(1, manyRoutes('r', 5));
    (tooManyParameters.nodes[1] as any).data.config.routes[3].parameters = manyRoutes('x', 1, parameters + 1)[0]!.parameters;
    const cases: Array<[string, Workflow, string, RegExp]> = [
      ['nodes', tooManyNodes, 'workflow.nodes', /maximum length 1000, but got an array with length 1001/],
      ['edges', tooManyEdges, 'workflow.edges', /maximum length 2000, but got an array with length 2001/],
      ['routes', tooManyRoutes, 'workflow.nodes[4].data.config.routes', /at most 1000 routes together.*brings them to 1001/],
      ['parameters', tooManyParameters, 'workflow.nodes[1].data.config.routes[3].parameters', /maximum length 100, but got .* 101/],
    ];
    const { body: existing } = await server.post(
      '/v1/agents',
      JSON.stringify({ name: 'Small', workflow: fanOutWorkflow(1, manyRoutes('r', 1)) }),
    );
    for (const [what, workflow, param, message] of cases) {
      for (const [path, payload] of [
        ['/v1/agents', { name: 'Too big', workflow }],
        [`/v1/agents/${existing.agent.id}`, { workflow }],
        ['/v1/agents/tools', { workflow }],
      ] as const) {
        const answer = await bestOfThree(path, payload);
        expect(answer.status, `${what} ${path}`).toBe(400);
        expect(error(answer), `${what} ${path}`).toMatchObject({ type: 'invalid_request_error', param, code: 'array_above_max_length' });
        expect(error(answer).message, `${what} ${path}`).toMatch(message);
        expectResponsive(answer.stall, `${what} ${path}`);
      }
    }
  });

  it("refuses the issue's 16,000-node workflow (the 4 MiB body admits ~68,000) at once instead of working for minutes", async () => {
    const workflow = {
      nodes: Array.from({ length: 16_000 }, (_, i) => ({ id: `a${i}`, type: 'agent', data: { name: 'A', model: 'x/y' } })),
      edges: [],
    };
    const answer = await bestOfThree('/v1/agents/tools', { workflow });
    expect(answer.status).toBe(400);
    expect(error(answer)).toMatchObject({ param: 'workflow.nodes', code: 'array_above_max_length' });
    expectResponsive(answer.stall, '16,000 nodes');
  });

  it('refuses a workflow whose agents together see more tool definitions than the budget, naming it, on save and preview', async () => {
    // The largest allowed pipeline plus one agent more: the head card reaches one more agent.
    const { n } = largestAllowed((count) => pipelineWorkflow(count, manyRoutes('r', 50)), WORKFLOW_LIMITS.nodes - 3);
    const workflow = pipelineWorkflow(n + 1, manyRoutes('r', 50));
    for (const path of ['/v1/agents', '/v1/agents/tools']) {
      const answer = await bestOfThree(path, { name: 'Wide', workflow });
      expect(answer.status, path).toBe(400);
      expect(error(answer), path).toMatchObject({ param: 'workflow.nodes', code: 'workflow_too_large' });
      expect(error(answer).message, path).toMatch(/more than the 2,000,000 allowed.*agent 'a\d+' sees/);
      expectResponsive(answer.stall, path);
    }
    expect(
      (await server.post('/v1/agents', JSON.stringify({ name: 'Fits', workflow: pipelineWorkflow(n, manyRoutes('r', 50)) }))).status,
    ).toBe(200);
  });

  it('documents every workflow limit in docs/api.md and docs/agents.md with the value the code enforces', () => {
    const rows: Record<keyof typeof WORKFLOW_LIMITS, string> = {
      nodes: 'nodes of a workflow',
      edges: 'edges of a workflow',
      routes: 'routes of all the Webhook cards of a workflow together',
      parameters: 'parameters of one route',
      seenToolChars: 'tool definitions the agent nodes see, summed over the agent nodes',
    };
    for (const doc of ['api.md', 'agents.md']) {
      const lines = readFileSync(new URL(`../../../docs/${doc}`, import.meta.url), 'utf8').split('\n');
      for (const [name, label] of Object.entries(rows)) {
        const row = lines.find((line) => line.startsWith(`| ${label}`));
        const value = WORKFLOW_LIMITS[name as keyof typeof WORKFLOW_LIMITS].toLocaleString('en-US');
        expect(row?.split('|')[2]?.trim(), `${doc}: the row of WORKFLOW_LIMITS.${name}`).toMatch(new RegExp(`^${value}( characters)?$`));
      }
    }
  });
});
