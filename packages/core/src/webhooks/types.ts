import type { EgressGuardContract } from '../egress/types';

/** A parameter the model fills; becomes one property of the tool's JSON Schema. */
export interface WebhookParameter {
  id?: string;
  /** Used in `{{name}}` placeholders and as the schema property name. */
  name: string;
  /** Schema type; default `string`. */
  type?: 'string' | 'number' | 'boolean' | 'array' | 'object';
  /** Enters the schema's `required` list; default true. */
  required?: boolean;
  description: string;
  /** Placed in parentheses after the description. */
  howToObtain?: string;
  /** Appended as `Exemplo: <example>`. */
  example?: string;
  /** Documented only: the runtime does not fill it in. */
  defaultValue?: string;
  /** Documented only: not enforced. */
  validValues?: string[];
  /** Accepted and ignored: placeholders decide where a value goes. */
  in?: string;
}

export type WebhookMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** One route of a card; each enabled route becomes one tool. */
export interface WebhookRoute {
  id?: string;
  /** Becomes the tool name after sanitization. */
  name: string;
  description: string;
  whenToUse: string;
  /** Default GET. Only POST, PUT and PATCH send a body. */
  method?: WebhookMethod;
  /** Joined to baseUrl; accepts `{{param}}` placeholders (values percent-encoded). */
  path: string;
  parameters?: WebhookParameter[];
  /** JSON with `{{placeholders}}`, quoted per parameter type. Without it POST/PUT/PATCH send the arguments. */
  bodyTemplate?: string;
  /** Query values (strings, may hold placeholders); an entry whose placeholder is unfilled is removed. */
  queryParams?: Record<string, string>;
  headers?: Record<string, string>;
  responseDescription?: string;
  /** Default true; false = not registered as a tool. */
  enabled?: boolean;
  /** Output name -> JSONPath (`$.order.id`); only matched fields are returned, else the full response. */
  responseMapping?: Record<string, string>;
  dependsOn?: string[];
  triggers?: string[];
  /** Accepted and ignored. */
  responseExample?: unknown;
}

/** Outbound authentication of a card, one setting for all routes. */
export type WebhookAuth =
  | { type: 'none' }
  | { type: 'bearer'; token: string }
  | { type: 'api_key'; apiKey: string; apiKeyName: string; apiKeyLocation?: 'header' | 'query' }
  | { type: 'basic'; username: string; password: string }
  | { type: 'custom_header'; customHeaderName: string; customHeaderValue: string };

export interface WebhookCardConfig {
  /** API base URL; a trailing slash is removed before joining with a route path. */
  baseUrl?: string;
  /** For editors of the card; never shown to the model. */
  description?: string;
  /** Default `{type: 'none'}`. */
  auth?: WebhookAuth | { type: string; [field: string]: unknown };
  defaultHeaders?: Record<string, string>;
  /** Per-attempt deadline in milliseconds; default 30000. */
  timeout?: number;
  /** Retry network failures (never HTTP >= 400); default true. */
  retryOnError?: boolean;
  /** Retries after the first attempt; default 2 (so up to 3 attempts), waiting 1 s then 2 s. */
  maxRetries?: number;
  routes?: WebhookRoute[];
  /** Calls per minute for the card (sliding window); default unlimited. */
  maxRequestsPerMinute?: number;
}

/** The Webhook card: the `data` of a workflow node of type `webhook`. */
export interface WebhookCard {
  /** Card name on the canvas; does not affect tool names. */
  name: string;
  config: WebhookCardConfig;
}

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
  /** Clock for the rate-limit window, in milliseconds; default `Date.now`. */
  now?: () => number;
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
