import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { silentLogger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { SqlDatabase } from '../storage';
import { meterReads } from '../test/metered-sql-client';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import type { AgentWebhooks } from './agent-deps';
import { INTERRUPTED_RUN_ERROR } from './agent-runs';
import { SqlAgentsRepository } from './agents-repository';
import { agentsSchema } from './agents-schema';
import { createAgents } from './create-agents';
import type { Workflow } from './workflow-types';

afterAll(closeTestPostgres);

const workflow = (prompt = 'Be brief.'): Workflow => ({
  nodes: [
    { id: 'start', type: 'start', data: {} },
    { id: 'helper', type: 'agent', data: { name: 'Helper', model: 'fake/model', system_prompt: prompt } },
    { id: 'end', type: 'end', data: { label: 'done', status: 'success' } },
  ],
  edges: [
    { id: 'e1', source: 'start', target: 'helper' },
    { id: 'e2', source: 'helper', target: 'end' },
  ],
});

describe.each(testBackends())('agents repository on %s', (backend) => {
  async function setup() {
    const db: SqlDatabase = await openTestDatabase(backend, [accountsSchema, agentsSchema]);
    const accounts = new Accounts(db);
    const [account, other] = [await accounts.create({ name: 'a' }), await accounts.create({ name: 'b' })];
    return { db, repository: new SqlAgentsRepository(db), account, other };
  }

  it('keeps agents per account, pages through them, and tells a published agent from its changed draft', async () => {
    const { db, repository, account, other } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await repository.createAgent(account.id, `agent ${i}`, workflow())).id);
    const page = await repository.listAgents(account.id, { limit: 3, order: 'asc' });
    expect(page.data.map((agent) => agent.id)).toEqual(ids.slice(0, 3));
    expect((await repository.listAgents(account.id, { order: 'asc', after: page.last_id! })).data.map((agent) => agent.id)).toEqual([
      ids[3],
    ]);
    expect(await repository.getAgent(other.id, ids[0]!)).toBeUndefined();
    expect(await repository.updateDraft(other.id, ids[0]!, { name: 'stolen' })).toBeUndefined();

    expect(await db.transaction((tx) => repository.in(tx).publish(account.id, ids[0]!))).toBe(1);
    expect(await repository.getAgent(account.id, ids[0]!)).toMatchObject({
      status: 'published',
      version: 1,
      has_unpublished_changes: false,
    });
    await repository.updateDraft(account.id, ids[0]!, { workflow: workflow('Be long.') });
    expect(await repository.getAgent(account.id, ids[0]!)).toMatchObject({ version: 1, has_unpublished_changes: true });
    expect((await repository.listAgents(account.id, { order: 'asc' })).data.map((agent) => agent.has_unpublished_changes)).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(await repository.deleteAgent(other.id, ids[0]!)).toBe(false);
    expect(await repository.deleteAgent(account.id, ids[0]!)).toBe(true);
    await db.close();
  });

  it('numbers concurrent publishes in turn and pages through the versions', async () => {
    const { db, repository, account } = await setup();
    const agent = await repository.createAgent(account.id, 'a', workflow());
    const versions = await Promise.all([1, 2, 3, 4, 5].map(() => db.transaction((tx) => repository.in(tx).publish(account.id, agent.id))));
    expect([...versions].sort()).toEqual([1, 2, 3, 4, 5]);
    const first = await repository.listVersions(agent.id, { limit: 2 });
    expect(first.data.map((version) => version.version)).toEqual([5, 4]);
    expect(first).toMatchObject({ first_id: `${agent.id}@5`, last_id: `${agent.id}@4`, has_more: true });
    const next = await repository.listVersions(agent.id, { limit: 2, after: first.last_id! });
    expect(next.data.map((version) => version.version)).toEqual([3, 2]);
    expect((await repository.listVersions(agent.id, { order: 'asc', after: '3' })).data.map((version) => version.version)).toEqual([4, 5]);
    expect((await repository.listVersions(agent.id, { after: 'not-a-version' })).data).toEqual([]);
    expect(await repository.publishedWorkflow(agent.id, 3)).toEqual(workflow());
    expect(await repository.getVersion(agent.id, 3)).toMatchObject({ id: `${agent.id}@3`, version: 3, name: 'a', workflow: workflow() });
    expect(await repository.getVersion(agent.id, 6)).toBeUndefined();
    await db.close();
  });

  it('lists versions and agents without reading the published workflows', async () => {
    const { db, account } = await setup();
    const metered = meterReads(db);
    const repository = new SqlAgentsRepository(metered);
    const big = workflow('p'.repeat(500_000));
    const agents = [];
    for (let i = 0; i < 3; i++) {
      const agent = await repository.createAgent(account.id, `a${i}`, big);
      for (let v = 0; v < 3; v++) await db.transaction((tx) => repository.in(tx).publish(account.id, agent.id));
      agents.push(agent);
    }
    await repository.updateDraft(account.id, agents[1]!.id, { workflow: workflow('changed') });
    metered.reset();
    const versions = await repository.listVersions(agents[0]!.id, { limit: 2 });
    expect(versions.data.map((version) => version.version)).toEqual([3, 2]);
    expect(metered.bytesRead).toBeLessThan(2_000);
    metered.reset();
    const listed = await repository.listAgents(account.id, { order: 'asc' });
    expect(listed.data.map((agent) => agent.has_unpublished_changes)).toEqual([false, true, false]);
    // The drafts it returns (two of 500 KB, one small), not the published versions beside them.
    expect(metered.bytesRead).toBeLessThan(1_100_000);
    await db.close();
  });

  it('writes a run only for its lease owner, pages through runs, and queues runs whose lease ended', async () => {
    const { db, repository, account } = await setup();
    const agent = await repository.createAgent(account.id, 'a', workflow());
    const now = Date.now();
    const live = await repository.createRun(agent, 1, 'hi', {}, { owner: 'node-a', until: now + 60_000 });
    const dead = await repository.createRun(agent, 1, 'hi', { x: 1 }, { owner: 'node-gone', until: now - 1 });
    expect(await repository.addStep(live.id, 'node-b', { type: 'message', node_id: 'helper', content: 'no' })).toBe(false);
    expect(await repository.addStep(live.id, 'node-a', { type: 'message', node_id: 'helper', content: 'yes' })).toBe(true);
    expect(await repository.finishRun(live.id, 'node-b', { status: 'completed', output: 'no' })).toBe(false);
    expect(await repository.finishRun(live.id, 'node-a', { status: 'completed', output: 'yes' })).toBe(true);
    expect(await repository.finishRun(live.id, 'node-a', { status: 'failed', error: 'late' })).toBe(false);
    expect(await repository.getRun(account.id, agent.id, live.id)).toMatchObject({
      status: 'completed',
      output: 'yes',
      steps: [{ type: 'message', content: 'yes' }],
    });
    const page = await repository.listRuns(agent.id, { limit: 1 });
    expect(page.data.map((run) => run.id)).toEqual([dead.id]);
    expect((await repository.listRuns(agent.id, { after: page.last_id! })).data.map((run) => run.id)).toEqual([live.id]);
    expect(await repository.queue().claim('node-c', now + 60_000, 10, now)).toEqual([{ id: dead.id, attempts: 2 }]);
    await db.close();
  });

  it('ends a run whose process died as failed on another process, and never runs it again', async () => {
    const { db, repository, account } = await setup();
    let modelCalls = 0;
    const chat: ChatAdapterContract = {
      complete: async () => {
        modelCalls++;
        throw new Error('not expected');
      },
      stream: () => {
        throw new Error('not expected');
      },
    };
    const webhooks = {} as AgentWebhooks;
    const agents = createAgents({ db, config: { leaseSeconds: 0.3 }, chat, webhooks, log: silentLogger, pollMs: 20 });
    const agent = await repository.createAgent(account.id, 'a', workflow());
    const run = await repository.createRun(agent, 1, 'hi', {}, { owner: 'gone|1|dead', until: Date.now() + 50 });
    agents.start();
    const deadline = Date.now() + 10_000;
    let stored = await repository.getRun(account.id, agent.id, run.id);
    while (stored?.status === 'in_progress' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stored = await repository.getRun(account.id, agent.id, run.id);
    }
    expect(stored).toMatchObject({ status: 'failed', error: INTERRUPTED_RUN_ERROR });
    expect(modelCalls).toBe(0);
    await agents.close();
    await db.close();
  });

  it('checks a stored draft against the workflow declaration again when it is published, naming the field', async () => {
    const { db, repository, account } = await setup();
    const chat = {} as ChatAdapterContract;
    const webhooks = {} as AgentWebhooks;
    const { agents, close } = createAgents({ db, config: {}, chat, webhooks, log: silentLogger });
    // A draft an older version saved: its card's route has a blank whenToUse, which the declaration refuses.
    const stored = workflow();
    stored.nodes.push({
      id: 'card',
      type: 'webhook',
      data: {
        name: 'Card',
        config: { baseUrl: 'https://api.example.com', routes: [{ name: 'r', description: 'd', whenToUse: ' ', path: '/x' }] },
      },
    });
    stored.edges.push({ id: 'slot', source: 'card', target: 'helper', targetHandle: 'slot-0' });
    const old = await repository.createAgent(account.id, 'old', stored);
    await expect(agents.publish(account.id, old.id)).rejects.toMatchObject({
      status: 400,
      code: 'empty_string',
      param: 'workflow.nodes[3].data.config.routes[0].whenToUse',
    });
    expect((await agents.retrieve(account.id, old.id)).version).toBeNull();
    const fine = await repository.createAgent(account.id, 'fine', workflow());
    expect(await agents.publish(account.id, fine.id)).toMatchObject({ status: 'published', version: 1 });
    await close();
    await db.close();
  });
});
