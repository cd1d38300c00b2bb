import { type Env, readNumber } from './env-values';

/** Settings of the data tools (`FATHOM_TOOLS_*`). Every variable is listed in docs/data-tools.md. */
export interface JobSettings {
  /** `FATHOM_TOOLS_CONCURRENCY`: provider calls running at once; default 4. */
  concurrency: number;
  /** `FATHOM_TOOLS_JOB_TIMEOUT_MS`: per-job deadline in milliseconds; default 120000. */
  jobTimeoutMs: number;
  /** `FATHOM_TOOLS_CACHE_TTL`: seconds a succeeded result answers identical inputs; default 86400 (24 h); 0 disables. */
  cacheTtlSeconds: number;
  /** `FATHOM_TOOLS_MAX_ATTEMPTS`: runs of a job interrupted by a crash before it is failed; default 2. */
  maxAttempts: number;
  /** `FATHOM_TOOLS_SWEEP_MS`: how often the queue is read for work other processes queued or abandoned; default 1000. */
  sweepMs: number;
}

export function readJobSettings(env: Env): JobSettings {
  return {
    concurrency: Math.floor(readNumber(env, 'FATHOM_TOOLS_CONCURRENCY', 4, 1)),
    jobTimeoutMs: readNumber(env, 'FATHOM_TOOLS_JOB_TIMEOUT_MS', 120_000, 1),
    cacheTtlSeconds: readNumber(env, 'FATHOM_TOOLS_CACHE_TTL', 86_400, 0),
    maxAttempts: Math.floor(readNumber(env, 'FATHOM_TOOLS_MAX_ATTEMPTS', 2, 1)),
    sweepMs: readNumber(env, 'FATHOM_TOOLS_SWEEP_MS', 1000, 10),
  };
}

/** `FATHOM_TOOLS_<TOOL>_<SUFFIX>`, e.g. `FATHOM_TOOLS_PRONET_PROFILE_APIFY_ACTOR`. */
export function toolVariable(tool: string, suffix: string): string {
  return `FATHOM_TOOLS_${tool.toUpperCase().replace(/-/g, '_')}_${suffix}`;
}
