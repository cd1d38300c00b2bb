import type { EgressGuardContract } from '../egress/types';
import type { ToolItem } from './wire/data-tools';

// One result row of a data tool: declared with the job's answer (wire/data-tools.ts).
export type { ToolItem } from './wire/data-tools';

/** What a source answers for one job. `cost` is the actual provider cost in currency units. */
export interface ToolOutput {
  items: ToolItem[];
  cost: number;
  /** Extra facts about the run (e.g. per-site crawl status), returned beside `items`. */
  details?: Record<string, unknown>;
}

/** Options of one run of a source. */
export interface ToolRunOptions {
  /** The tool being run, e.g. `maps` (one source class may serve several tools). */
  tool: string;
  /** Input after validation, defaults and normalisation. */
  input: Record<string, unknown>;
  /** The job's pre-authorized ceiling; a source never needs to spend more. */
  ceiling: number;
  /** Aborted at the per-job timeout or on shutdown. */
  signal: AbortSignal;
  /** Account the job belongs to (model usage is attributed to it). */
  accountId: string;
}

/**
 * The contract of a data source serving one or more tools. Chosen per tool by configuration
 * (see `createToolSources`); a tool with no source answers 503 `tool_unavailable`.
 */
export interface ToolSource {
  /** Stable name shown in logs and docs, e.g. `openstreetmap`, `apify`, `http`. */
  readonly name: string;
  run(options: ToolRunOptions): Promise<ToolOutput>;
}

/** Dependencies every source may use: the egress guard for user-chosen URLs, `fetch` for trusted providers. */
export interface SourceDeps {
  egress: EgressGuardContract;
  /** For operator-configured providers (not filtered); default global fetch (undici). */
  fetch?: typeof fetch;
}
