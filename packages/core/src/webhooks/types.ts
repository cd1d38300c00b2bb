import type { EgressGuardContract } from '../egress/types';
import type { RateLimiter } from './rate-limiter';
import type { WebhookCard } from './wire/webhook-card';

// The card itself (parameters, routes, auth, config) is declared once, with its schema: wire/webhook-card.ts.
export type { WebhookAuth, WebhookCard, WebhookCardConfig, WebhookMethod, WebhookParameter, WebhookRoute } from './wire/webhook-card';

/** A JSON Schema object as tools declare their input. */
export interface WebhookToolSchema {
  type: 'object';
  properties: Record<string, { type: string; description: string; items?: Record<string, never> }>;
  required: string[];
}

/** One enabled route compiled into a tool. */
export interface CompiledWebhookTool {
  /** Sanitized tool name (what the model calls). */
  name: string;
  description: string;
  parameters: WebhookToolSchema;
  /** The route's own name, for `execute`. */
  routeName: string;
  /** The card the route belongs to (holds credentials: never show it to the model). */
  card: WebhookCard;
}

/** A tool name compiled twice: the later one wins. */
export interface WebhookToolCollision {
  /** The sanitized name both share. */
  name: string;
  /** What was overwritten: `built-in <name>` or `<card>/<route>`. */
  overwritten: string;
  /** The route that took the name: `<card>/<route>`. */
  by: string;
}

export interface WebhookToolkitOptions {
  /** The egress guard every call goes through (private and loopback destinations are refused). */
  egress: EgressGuardContract;
  /** Wait between retries; default a `setTimeout` promise (tests inject one). */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Clock for the rate-limit window, in milliseconds; default `Date.now` (used by the default in-memory limiter). */
  now?: () => number;
  /**
   * Where `maxRequestsPerMinute` windows are kept; default in memory (`SlidingWindowRateLimiter`: one
   * process). Fathom passes a `SqlRateLimiter` so a card's limit holds across the processes of one database.
   */
  rateLimiter?: RateLimiter;
  /** Response bytes read per call; default 5 MiB (text beyond 5,000 characters is cut anyway). */
  maxResponseBytes?: number;
  /**
   * Largest result of a JSON answer, in characters, notes included; default 100,000 (MAX_TOOL_RESULT_CHARS).
   * A longer one is cut and ends with a line saying so. Non-JSON text stays cut at 5,000, error bodies at 500.
   */
  maxResultChars?: number;
  /** Deadline, in ms, of a `responseMapping` whose paths use `..`, `*`, filters or slices (evaluated in a worker); default 2000. */
  mappingTimeoutMs?: number;
  /** Heap cap of the mapping worker, in MB; default 256. */
  mappingMemoryMb?: number;
}

export interface WebhookExecuteOptions {
  signal?: AbortSignal;
  /** Rate-limit window key; default the card name plus its baseUrl. */
  rateLimitKey?: string;
}
