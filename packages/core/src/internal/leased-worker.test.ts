import { afterAll, describe, expect, it } from 'vitest';
import { SqlLeaseQueue, type Schema, type SqlClient } from '../storage';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { LeasedWorker, TaskStopped, type TaskContext } from './leased-worker';
import { silentLogger } from './logger';

const schema: Schema = {
  component: 'lease-test',
  sqlite: [
    `CREATE TABLE tasks (id TEXT PRIMARY KEY, status TEXT NOT NULL, runs INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
      lease_owner TEXT, lease_until INTEGER, result TEXT, created INTEGER NOT NULL)`,
  ],
  postgres: [
    `CREATE TABLE tasks (id TEXT PRIMARY KEY, status TEXT NOT NULL, runs INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
      lease_owner TEXT, lease_until BIGINT, result TEXT, created BIGINT NOT NULL)`,
  ],
};

interface Task {
  id: string;
  attempts: number;
}

const queueOf = (client: SqlClient) =>
  new SqlLeaseQueue<Task>(client, {
    table: 'tasks',
    waiting: "status = 'queued'",
    working: "status = 'running'",
    onClaim: "status = 'running'",
    onRelease: "status = 'queued'",
    order: 'created',
    toTask: (row) => ({ id: String(row.id), attempts: Number(row.attempts) }),
  });

async function addTasks(client: SqlClient, count: number) {
  for (let i = 0; i < count; i++) {
    await client.run("INSERT INTO tasks (id, status, created) VALUES (?, 'queued', ?)", [`t${i}`, i]);
  }
}

/** A run that records itself and finishes the row only while it still holds the lease. */
function finishing(client: SqlClient, delayMs = 0) {
  return async (task: Task, context: TaskContext) => {
    await client.run('UPDATE tasks SET runs = runs + 1 WHERE id = ?', [task.id]);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    context.signal.throwIfAborted();
    await client.run("UPDATE tasks SET status = 'done', result = ? WHERE id = ? AND lease_owner = ? AND status = 'running'", [
      context.owner,
      task.id,
      context.owner,
    ]);
  };
}

const exhausted = (client: SqlClient) => async (task: Task, context: TaskContext) => {
  await client.run("UPDATE tasks SET status = 'failed' WHERE id = ? AND lease_owner = ?", [task.id, context.owner]);
};

async function waitFor(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

afterAll(closeTestPostgres);

describe.each(testBackends())('LeasedWorker over SqlLeaseQueue on %s', (backend) => {
  it('shares a queue between two workers: every task runs exactly once', async () => {
    const db = await openTestDatabase(backend, [schema]);
    await addTasks(db, 40);
    const make = () =>
      new LeasedWorker<Task>({
        name: 'test',
        queue: queueOf(db),
        run: finishing(db, 2),
        exhausted: exhausted(db),
        concurrency: 3,
        pollMs: 20,
        log: silentLogger,
      });
    const [a, b] = [make(), make()];
    a.start();
    b.start();
    try {
      await waitFor(async () => (await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM tasks WHERE status = 'done'"))!.n === 40);
      const runs = await db.all<{ runs: number; result: string }>('SELECT runs, result FROM tasks');
      expect(runs.every((row) => row.runs === 1)).toBe(true);
      expect(new Set(runs.map((row) => row.result)).size).toBe(2);
    } finally {
      await a.close();
      await b.close();
      await db.close();
    }
  });

  it('takes over a task whose owner stopped renewing once the lease expires, and the stale run cannot finish it', async () => {
    const db = await openTestDatabase(backend, [schema]);
    await addTasks(db, 1);
    const queue = queueOf(db);
    const [claimed] = await queue.claim('dead-owner', Date.now() + 150, 1, Date.now());
    expect(claimed).toMatchObject({ id: 't0', attempts: 1 });
    const worker = new LeasedWorker<Task>({
      name: 'test',
      queue,
      run: finishing(db),
      exhausted: exhausted(db),
      pollMs: 20,
      log: silentLogger,
    });
    worker.start();
    try {
      await waitFor(async () => (await db.get<{ status: string }>('SELECT status FROM tasks'))!.status === 'done');
      const row = await db.get<{ result: string; attempts: number }>('SELECT result, attempts FROM tasks');
      expect(row).toEqual({ result: worker.owner, attempts: 2 });
      const stale = await db.run("UPDATE tasks SET status = 'done', result = 'stale' WHERE lease_owner = ? AND status = 'running'", [
        'dead-owner',
      ]);
      expect(stale.changes).toBe(0);
    } finally {
      await worker.close();
      await db.close();
    }
  });

  it('gives running tasks back at shutdown without counting the attempt, and fails a task claimed too often', async () => {
    const db = await openTestDatabase(backend, [schema]);
    await addTasks(db, 2);
    await db.run("UPDATE tasks SET attempts = 3, status = 'running', lease_owner = 'x', lease_until = 0 WHERE id = 't1'");
    let started!: () => void;
    const running = new Promise<void>((resolve) => (started = resolve));
    const worker = new LeasedWorker<Task>({
      name: 'test',
      queue: queueOf(db),
      run: async (_task, context) => {
        started();
        await new Promise((_, reject) => context.signal.addEventListener('abort', () => reject(context.signal.reason)));
      },
      exhausted: exhausted(db),
      pollMs: 20,
      log: silentLogger,
    });
    worker.start();
    await running;
    await waitFor(async () => (await db.get<{ status: string }>("SELECT status FROM tasks WHERE id = 't1'"))!.status === 'failed');
    await worker.close();
    const t0 = await db.get<{ status: string; attempts: number; lease_owner: string | null }>(
      "SELECT status, attempts, lease_owner FROM tasks WHERE id = 't0'",
    );
    expect(t0).toEqual({ status: 'queued', attempts: 0, lease_owner: null });
    await db.close();
  });

  it('aborts a local run whose lease another process took', async () => {
    const db = await openTestDatabase(backend, [schema]);
    await addTasks(db, 1);
    let reason: unknown;
    const worker = new LeasedWorker<Task>({
      name: 'test',
      queue: queueOf(db),
      run: async (_task, context) => {
        await new Promise<void>((resolve) =>
          context.signal.addEventListener('abort', () => {
            reason = context.signal.reason;
            resolve();
          }),
        );
      },
      exhausted: exhausted(db),
      leaseMs: 150,
      pollMs: 20,
      log: silentLogger,
    });
    worker.start();
    await waitFor(async () => worker.active === 1);
    await db.run("UPDATE tasks SET lease_owner = 'someone-else'");
    await waitFor(async () => reason !== undefined);
    expect(reason).toBeInstanceOf(TaskStopped);
    expect((reason as TaskStopped).reason).toBe('lease-lost');
    await worker.close();
    await db.close();
  });
});
