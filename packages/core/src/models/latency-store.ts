import type { Logger } from '../internal/logger';
import type { Schema, SqlClient } from '../storage';
import { BufferedCounters, type CounterTable } from './buffered-counters';
import type { LatencyRow } from './wire/latency';

/**
 * Model call durations per account, UTC day and model, as a histogram: one upserted count per log bucket
 * (16 buckets per doubling, so a bucket is 4.4% wide). Percentiles come from the counts, so the table grows
 * with the days and models, never with the calls, and processes sharing a database add up.
 */
export const modelLatencySchema: Schema = {
  component: 'model_latency',
  sqlite: [
    `CREATE TABLE model_latency (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      model TEXT NOT NULL,
      bucket INTEGER NOT NULL,
      calls INTEGER NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, model, bucket)
    ) WITHOUT ROWID;`,
  ],
  postgres: [
    `CREATE TABLE model_latency (
      account_id TEXT NOT NULL,
      day TEXT NOT NULL,
      model TEXT NOT NULL,
      bucket INTEGER NOT NULL,
      calls BIGINT NOT NULL DEFAULT 0,
      PRIMARY KEY (account_id, day, model, bucket)
    );`,
  ],
};

const BUCKETS_PER_DOUBLING = 16;

/** The bucket of a duration: bucket `b` holds durations in `(2^((b-1)/16), 2^(b/16)]` ms; bucket 0 everything up to 1 ms. */
export function latencyBucket(ms: number): number {
  return ms <= 1 ? 0 : Math.ceil(Math.log2(ms) * BUCKETS_PER_DOUBLING);
}

const upperOf = (bucket: number): number => 2 ** (bucket / BUCKETS_PER_DOUBLING);
const lowerOf = (bucket: number): number => (bucket === 0 ? 0 : upperOf(bucket - 1));

/**
 * The `q` quantile (0 < q ≤ 1, nearest rank) of a histogram given as `[bucket, calls]` pairs, interpolated
 * inside its bucket: within one bucket's width (4.4%) of the exact value.
 */
export function quantileOf(histogram: ReadonlyArray<readonly [bucket: number, calls: number]>, q: number): number {
  const sorted = [...histogram].sort((a, b) => a[0] - b[0]);
  const total = sorted.reduce((sum, [, calls]) => sum + calls, 0);
  const rank = Math.max(1, Math.ceil(q * total));
  let below = 0;
  for (const [bucket, calls] of sorted) {
    if (below + calls >= rank) {
      const lower = lowerOf(bucket);
      return lower + ((upperOf(bucket) - lower) * (rank - below)) / calls;
    }
    below += calls;
  }
  return 0;
}

export interface LatencyQuery {
  /** First day included, `YYYY-MM-DD`. */
  startDate?: string;
  /** Last day included, `YYYY-MM-DD`. */
  endDate?: string;
  model?: string;
}

/** The counters of `model_latency`: calls per (account, day, model, bucket). */
const LATENCY_COUNTERS: CounterTable<'account_id' | 'day' | 'model' | 'bucket', 'calls'> = {
  table: 'model_latency',
  keys: ['account_id', 'day', 'model', 'bucket'],
  counts: ['calls'],
};

const round = (ms: number): number => Math.round(ms * 10) / 10;

/**
 * Records how long each answered model call of an account took (request sent to last token) and answers
 * p50/p95 per day and model. Like `UsageStore`, calls are counted in memory and written as increments at
 * most every `flushIntervalMs` (`BufferedCounters`); a failed write keeps them for the next; reads flush
 * this process's first.
 */
export class LatencyStore {
  private readonly db: SqlClient;
  private readonly counters: BufferedCounters<'account_id' | 'day' | 'model' | 'bucket', 'calls'>;

  constructor(db: SqlClient, options: { flushIntervalMs?: number; log?: Logger } = {}) {
    this.db = db;
    this.counters = new BufferedCounters(LATENCY_COUNTERS, db, { ...options, what: 'call latencies' });
  }

  /** One call of `ms` milliseconds; calls made for no account are not kept. */
  record(accountId: string | undefined, model: string, ms: number, at = new Date()): void {
    if (accountId === undefined || !Number.isFinite(ms)) return;
    this.counters.add({
      account_id: accountId,
      day: at.toISOString().slice(0, 10),
      model,
      bucket: latencyBucket(Math.max(0, ms)),
      calls: 1,
    });
  }

  flush(): Promise<void> {
    return this.counters.flush();
  }

  /** p50 and p95 per day and model, oldest day first. */
  async list(accountId: string, query: LatencyQuery = {}): Promise<LatencyRow[]> {
    await this.flush();
    const params: unknown[] = [accountId, query.startDate ?? '0000-00-00', query.endDate ?? '9999-99-99'];
    if (query.model !== undefined) params.push(query.model);
    const rows = await this.db.all<{ day: string; model: string; bucket: number; calls: number }>(
      `SELECT day, model, bucket, calls FROM model_latency
       WHERE account_id = ? AND day >= ? AND day <= ?${query.model !== undefined ? ' AND model = ?' : ''} ORDER BY day, model, bucket`,
      params,
    );
    const groups = new Map<string, { date: string; model: string; histogram: Array<[number, number]> }>();
    for (const row of rows) {
      const key = `${row.day}\u0000${row.model}`;
      const group = groups.get(key) ?? { date: row.day, model: row.model, histogram: [] };
      groups.set(key, group);
      group.histogram.push([Number(row.bucket), Number(row.calls)]);
    }
    return [...groups.values()].map(({ date, model, histogram }) => ({
      date,
      model,
      requests: histogram.reduce((sum, [, calls]) => sum + calls, 0),
      p50_ms: round(quantileOf(histogram, 0.5)),
      p95_ms: round(quantileOf(histogram, 0.95)),
    }));
  }

  close(): Promise<void> {
    return this.counters.close();
  }
}
