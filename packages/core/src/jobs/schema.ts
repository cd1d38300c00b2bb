import type { Schema } from '../db';

/** The durable job queue: one row per job; the row is also the result cache (see `JobStore.findCached`). */
export const jobsSchema: Schema = {
  component: 'jobs',
  migrations: [
    `CREATE TABLE tool_jobs (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      tool TEXT NOT NULL,
      input TEXT NOT NULL,
      cache_key TEXT NOT NULL,
      status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
      ceiling_micros INTEGER NOT NULL,
      cost_micros INTEGER,
      cached INTEGER NOT NULL DEFAULT 0,
      result TEXT,
      error_code TEXT,
      error_message TEXT,
      attempts INTEGER NOT NULL DEFAULT 0,
      created_ms INTEGER NOT NULL,
      started_ms INTEGER,
      finished_ms INTEGER
    );
    CREATE INDEX tool_jobs_account ON tool_jobs(account_id);
    CREATE INDEX tool_jobs_status ON tool_jobs(status);
    CREATE INDEX tool_jobs_cache ON tool_jobs(cache_key, finished_ms) WHERE status = 'succeeded' AND cached = 0;`,
  ],
};
