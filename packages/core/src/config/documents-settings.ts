/** Settings of the documents capability (ingestion, extraction, sweeps, query rewriting). */
export interface DocumentsSettings {
  /** `FATHOM_INGEST_CONCURRENCY`: files ingested at once by one process, default 8. */
  ingestConcurrency: number;
  /** `FATHOM_EXTRACT_THREADS`: text-extraction worker threads, default min(2, cores). */
  extractThreads?: number;
  /** `FATHOM_EXTRACT_MEMORY_MB`: heap cap of one parse, default 512. */
  extractMemoryMb: number;
  /** `FATHOM_EXTRACT_TIMEOUT_MS`: deadline of one parse, default 60000. */
  extractTimeoutMs: number;
  /** `FATHOM_DOCUMENTS_SWEEP_SECONDS`: how often expired files are deleted and failed index removals retried, default 60. */
  sweepSeconds: number;
  /** `FATHOM_QUERY_REWRITE_MODEL`: `<vendor>/<model>` that rewrites queries for `rewrite_query: true`; unset = lexical rewrite. */
  queryRewriteModel?: string;
}

function positiveInteger(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer, got '${value}'.`);
  return parsed;
}

function positiveNumber(env: Record<string, string | undefined>, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!(parsed > 0) || !Number.isFinite(parsed)) throw new Error(`${name} must be a number > 0, got '${value}'.`);
  return parsed;
}

/** Reads the documents settings, with a message naming the variable for a bad value. */
export function readDocumentsSettings(env: Record<string, string | undefined>): DocumentsSettings {
  const model = env.FATHOM_QUERY_REWRITE_MODEL?.trim();
  if (model && !/^[^/\s]+\/\S+$/.test(model)) {
    throw new Error(`FATHOM_QUERY_REWRITE_MODEL must be a <vendor>/<model> id, got '${model}'.`);
  }
  return {
    ingestConcurrency: positiveInteger(env, 'FATHOM_INGEST_CONCURRENCY', 8),
    extractThreads: env.FATHOM_EXTRACT_THREADS ? positiveInteger(env, 'FATHOM_EXTRACT_THREADS', 2) : undefined,
    extractMemoryMb: positiveInteger(env, 'FATHOM_EXTRACT_MEMORY_MB', 512),
    extractTimeoutMs: positiveInteger(env, 'FATHOM_EXTRACT_TIMEOUT_MS', 60_000),
    sweepSeconds: positiveNumber(env, 'FATHOM_DOCUMENTS_SWEEP_SECONDS', 60),
    queryRewriteModel: model || undefined,
  };
}
