import type { Accounts } from '../accounts';
import type { FathomConfig, JobSettings } from '../config';
import type { EgressGuardContract } from '../egress/types';
import type { Logger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { SqlClient } from '../storage';
import { DataTools } from './data-tools';
import { JobRunner } from './job-runner';
import { type JobsRepository, SqlJobsRepository } from './job-store';
import { Jobs } from './jobs';
import { createToolSources } from './sources/create-tool-sources';
import type { ToolSource } from './types';

export interface DataToolsOptions {
  db: SqlClient;
  config: FathomConfig;
  accounts: Accounts;
  /** Model calls of `nl-data` (the ChatAdapter); without one, nl-data is unavailable. */
  chat?: ChatAdapterContract;
  /**
   * The egress guard: every user-chosen URL (website crawls, nl-data pages, Mastodon instances) goes through it.
   * Without one, the tools that need it (website-contacts, social-profile, nl-data) are unavailable.
   */
  egress?: EgressGuardContract;
  log: Logger;
  /** Sources that win over configuration, by tool name (tests, embedding apps). */
  sources?: Partial<Record<string, ToolSource>>;
  /** Settings that win over `FATHOM_TOOLS_*` variables. */
  settings?: Partial<JobSettings>;
  /** Storage of the jobs; default SQL over `db`. */
  repository?: JobsRepository;
  /** The time, in ms, that decides whether a cached result is still fresh; default `Date.now` (tests move it). */
  now?: () => number;
}

/** The data-tools capability: `fathom.tools` (the catalog), `fathom.jobs`, and the background runner of jobs. */
export interface DataToolsCapability {
  tools: DataTools;
  jobs: Jobs;
  /** Starts claiming jobs (queued ones, and those whose process stopped). */
  start(): void;
  /** Stops claiming, gives running jobs back to the queue and waits for them. Call before closing the database. */
  close(): Promise<void>;
}

/**
 * Data tools over the storage seam: the catalog with each tool's availability (the sources the
 * configuration names, or `sources` overrides), the jobs, and their runner. One source set serves the
 * catalog, the starts and the runner.
 */
export function createDataTools(options: DataToolsOptions): DataToolsCapability {
  const settings: JobSettings = { ...options.config.tools, ...options.settings };
  const sources = createToolSources({
    settings: options.config.toolSources,
    egress: options.egress,
    chat: options.chat,
    overrides: options.sources,
  });
  const jobs = options.repository ?? new SqlJobsRepository(options.db);
  const runner = new JobRunner({
    db: options.db,
    accounts: options.accounts,
    jobs,
    sources,
    settings,
    leaseMs: options.config.leaseSeconds * 1000,
    log: options.log,
    now: options.now ?? Date.now,
  });
  return {
    tools: new DataTools(sources),
    jobs: new Jobs({ db: options.db, accounts: options.accounts, jobs, sources, runner }),
    start: () => runner.start(),
    close: () => runner.close(),
  };
}
