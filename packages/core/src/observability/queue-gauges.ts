import type { SqlClient } from '../storage';
import type { FathomMetrics } from './metrics';

/** A lease queue as the gauges read it: its table, the rows waiting for a worker, and when each was queued. */
interface QueueShape {
  kind: string;
  table: string;
  /** Rows waiting for a first claim, or whose lease ran out (the node working on them stopped). */
  waiting: string;
  /** SQL of the time a row was queued, in milliseconds. */
  queuedMs: string;
}

/** Every lease queue, by the `kind` label its worker's name gives (`LeasedWorker` `name`, spaces as underscores; the `waiting`/`working` conditions of the `SqlLeaseQueue` each capability declares). */
const QUEUES: readonly QueueShape[] = [
  {
    kind: 'ingestion',
    table: 'vector_store_files',
    waiting: "status = 'in_progress' AND (lease_owner IS NULL OR lease_until < ?)",
    queuedMs: 'created_at * 1000',
  },
  {
    kind: 'jobs',
    table: 'tool_jobs',
    waiting: "status = 'queued' OR (status = 'running' AND lease_until < ?)",
    queuedMs: 'created_ms',
  },
  {
    kind: 'assistant_runs',
    table: 'runs',
    waiting: "status IN ('queued', 'in_progress', 'cancelling') AND (lease_owner IS NULL OR lease_until < ?)",
    queuedMs: 'created_ms',
  },
  {
    kind: 'background_responses',
    table: 'responses',
    waiting: "background = 1 AND (status = 'queued' OR (status = 'in_progress' AND lease_until < ?))",
    queuedMs: 'created_at * 1000',
  },
  {
    kind: 'agent_runs',
    table: 'agent_runs',
    waiting: "status = 'in_progress' AND (lease_owner IS NULL OR lease_until < ?)",
    queuedMs: 'created_ms',
  },
];

/**
 * Sets the database-wide gauges (`fathom_lease_queue_depth`, `fathom_lease_queue_lag_seconds`,
 * `fathom_ingestion_queue_depth`) from the database: one count per queue at scrape time, so every node
 * of a cluster reports the same numbers and a sum over nodes is not what a dashboard should show.
 */
export async function readQueueGauges(db: SqlClient, metrics: FathomMetrics, now = Date.now()): Promise<void> {
  for (const queue of QUEUES) {
    const row = await db.get<{ depth: number; oldest: number | null }>(
      `SELECT COUNT(*) AS depth, MIN(${queue.queuedMs}) AS oldest FROM ${queue.table} WHERE ${queue.waiting}`,
      [now],
    );
    const depth = Number(row?.depth ?? 0);
    const oldest = row?.oldest === null || row?.oldest === undefined ? null : Number(row.oldest);
    metrics.leaseQueueDepth.set({ kind: queue.kind }, depth);
    metrics.leaseQueueLag.set({ kind: queue.kind }, oldest === null ? 0 : Math.max(0, (now - oldest) / 1000));
    if (queue.kind === 'ingestion') metrics.ingestionQueueDepth.set(depth);
  }
}
