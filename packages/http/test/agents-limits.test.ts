import { WORKFLOW_LIMITS, type Workflow } from '@fathom/core';
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
import type { ErrorBody } from './harness';

/** Longest the server's event loop may stall while it handles one of the largest allowed workflows (issue 23). */
const MAX_STALL_MS = 100;
const KEY = 'fth_limits_key';
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const probe = fileURLToPath(new URL('./event-loop-probe.ts', import.meta.url));

/**
 * A real `fathom serve` process with the event-loop probe loaded. Only the server runs in it: the
 * test's own JSON work and, on the http-postgres project, PGlite stay in the test process, so the
 * probe measures what the server does with a request and nothing else.
 */
interface ServeProcess {
  url: string;
  post(path: string, body: string): Promise<{ status: number; body: any }>;
  /** The longest event-loop stall of the server since the previous call. */
  maxStallMs(): Promise<number>;
  stop(): Promise<void>;
}

async function startServe(env: Record<string, string>): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-limits-'));
  const databaseUrl = process.env.FATHOM_TEST_BACKEND === 'postgres' ? await postgresForDataDir(dataDir) : undefined;
  const child: ChildProcess = spawn(process.execPath, ['--conditions=fathom-source', '--import', 'tsx', '--import', probe, cli, 'serve'], {
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
  const stalls: number[] = [];
  let stallArrived: () => void = () => {};
  child.stdout!.on('data', (data: Buffer) => {
    output += data.toString();
    for (const match of data.toString().matchAll(/event-loop-max-ms ([\d.]+)/g)) {
      stalls.push(Number(match[1]));
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
  const maxStallMs = async () => {
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
    maxStallMs,
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

  /** POSTs a body serialized beforehand and answers with the server's longest stall meanwhile. */
  async function timed(path: string, payload: unknown): Promise<{ status: number; body: any; stallMs: number }> {
    const text = JSON.stringify(payload);
    await server.maxStallMs();
    const answer = await server.post(path, text);
    return { ...answer, stallMs: await server.maxStallMs() };
  }

  /**
   * `timed`, repeated (up to three times) while the stall is not under the limit: on these shared
   * machines another process may take the CPU from the server in the middle of a request, which delays
   * its event loop as much as work of its own would. Work of the server's own that holds the loop
   * past the limit does so every time, so the best of three still catches it.
   */
  async function bestOfThree(path: string, payload: unknown): Promise<{ status: number; body: any; stallMs: number }> {
    let best = await timed(path, payload);
    for (let attempt = 1; attempt < 3 && best.stallMs >= MAX_STALL_MS; attempt++) {
      const again = await timed(path, payload);
      if (again.stallMs < best.stallMs) best = again;
    }
    return best;
  }

  it('previews, saves, updates, publishes and runs the largest workflow of each costly shape, never stalling the server for 100 ms', async () => {
    // A first small request, as any server has served before a large one.
    expect((await timed('/v1/agents/tools', { workflow: fanOutWorkflow(1, manyRoutes('warm', 2)) })).status).toBe(200);
    const stalls: string[] = [];
    for (const [shape, workflow] of Object.entries(shapes)) {
      const preview = await bestOfThree('/v1/agents/tools', { workflow });
      expect(preview.status, shape).toBe(200);
      expect(preview.body.validation_error, shape).toBeNull();
      const saved = await bestOfThree('/v1/agents', { name: `Largest ${shape}`, workflow });
      expect(saved.status, shape).toBe(200);
      const id: string = saved.body.agent.id;
      const updated = await bestOfThree(`/v1/agents/${id}`, { workflow: saved.body.agent.workflow });
      expect(updated.status, shape).toBe(200);
      const published = await bestOfThree(`/v1/agents/${id}/publish`, {});
      expect(published.status, shape).toBe(200);
      const steps = [preview, saved, updated, published];
      if (workflow.nodes.filter((node) => node.type === 'agent').length <= 20) {
        // Starting a run builds every agent's tools; each model call carries them all.
        const run = await bestOfThree(`/v1/agents/${id}/run`, { message: 'Go.' });
        expect(run.body.run?.status ?? run.body, shape).toBe('completed');
        steps.push(run);
      }
      stalls.push(`${shape}: ${steps.map((step) => step.stallMs.toFixed(0)).join('/')} ms`);
    }
    const worst = Math.max(...stalls.flatMap((line) => line.split(': ')[1]!.replace(' ms', '').split('/').map(Number)));
    expect(worst, `longest stall (preview/save/update/publish/run) per shape: ${stalls.join('; ')}`).toBeLessThan(MAX_STALL_MS);
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
        expect(answer.stallMs, `${what} ${path}`).toBeLessThan(MAX_STALL_MS);
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
    expect(answer.stallMs).toBeLessThan(MAX_STALL_MS);
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
      expect(answer.stallMs, path).toBeLessThan(MAX_STALL_MS);
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
