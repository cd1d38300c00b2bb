import { delay } from '../transport';
import type { ChatToolDefinition } from '../models/types';
import { buildRequest } from './build-request';
import { compileCards, type CompileResult } from './compile-card';
import { MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
import { formatResponse, MAX_MAPPING_MATCHES } from './format-response';
import { MappingPool } from './mapping-pool';
import { metrics } from '../observability/metrics';
import { inSpan } from '../observability/tracing';
import { type RateLimiter, SlidingWindowRateLimiter } from './rate-limiter';
import type { Arguments } from './render-template';
import { sanitizeToolName } from './sanitize-name';
import { sendWithRetries } from './send-with-retries';
import type {
  CompiledWebhookTool,
  WebhookCard,
  WebhookExecuteOptions,
  WebhookRoute,
  WebhookToolkitOptions,
  WebhookToolSchema,
} from './types';

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;

/** `setTimeout`-based wait, cancelled by `signal` (exported for tests, not from index.ts). */
/** The default wait between retries (abortable). */
export const defaultSleep = delay;

/** Arguments as an object: the model's JSON text is parsed; anything else counts as no arguments. */
function argumentsOf(args: unknown): Arguments {
  if (typeof args === 'string') {
    try {
      return argumentsOf(JSON.parse(args));
    } catch {
      return {};
    }
  }
  return args && typeof args === 'object' && !Array.isArray(args) ? (args as Arguments) : {};
}

/**
 * The Webhook card toolkit: compiles cards into tools the model can call, and executes route calls by the
 * spec's Outbound route calls rules through the egress guard. Route-call problems come back as text
 * (`Error: ...`) for the model, never as exceptions.
 */
export class WebhookToolkit {
  private readonly options: WebhookToolkitOptions;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly limiter: RateLimiter;
  private readonly mappings: MappingPool;

  constructor(options: WebhookToolkitOptions) {
    this.options = options;
    this.sleep = options.sleep ?? defaultSleep;
    this.limiter = options.rateLimiter ?? new SlidingWindowRateLimiter(options.now ?? Date.now);
    this.mappings = new MappingPool({ timeoutMs: options.mappingTimeoutMs, memoryMb: options.mappingMemoryMb });
  }

  /** Stops the mapping worker (idle workers do not hold the process open; this ends them at once). */
  async close(): Promise<void> {
    await this.mappings.close();
  }

  /** Each enabled route of the cards becomes one tool; name collisions overwrite and are reported. */
  compile(cards: WebhookCard | WebhookCard[], options: { reservedNames?: string[] } = {}): CompileResult {
    return compileCards(Array.isArray(cards) ? cards : [cards], options.reservedNames ?? []);
  }

  /**
   * What the model sees of a tool: name, description and input schema — never the card or its
   * credentials. The schema is a copy (a caller may change it without touching the compiled tool),
   * made field by field: it has a fixed shape, and `structuredClone` costs ten times as much.
   */
  toolDefinition(tool: CompiledWebhookTool): ChatToolDefinition {
    const source = tool.parameters.properties;
    const properties: WebhookToolSchema['properties'] = {};
    for (const name of Object.keys(source)) {
      const { type, description, items } = source[name]!;
      properties[name] = items ? { type, description, items: {} } : { type, description };
    }
    const parameters: WebhookToolSchema = { type: 'object', properties, required: [...tool.parameters.required] };
    return {
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: parameters as unknown as Record<string, unknown> },
    };
  }

  /** Calls one route with the model's arguments and returns the text the model receives. Never throws. */
  async execute(card: WebhookCard, routeName: string, args: unknown, options: WebhookExecuteOptions = {}): Promise<string> {
    try {
      return await this.executeRoute(card, routeName, argumentsOf(args), options);
    } catch (error) {
      return `Error: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private async executeRoute(card: WebhookCard, routeName: string, args: Arguments, options: WebhookExecuteOptions): Promise<string> {
    const config = card?.config ?? {};
    const routes = config.routes ?? [];
    const route = findRoute(routes, routeName);
    if (!route) {
      const available = routes.filter((candidate) => candidate.enabled !== false).map((candidate) => candidate.name);
      return `Error: Route '${routeName}' not found. Available routes: ${available.length ? available.join(', ') : '(none)'}`;
    }
    if (route.enabled === false) return `Error: Route '${route.name}' is disabled`;
    const baseUrl = typeof config.baseUrl === 'string' ? config.baseUrl.trim() : '';
    if (!baseUrl) return 'Error: Webhook base URL not configured';

    const built = buildRequest(card, route, args, baseUrl);
    if (!built.ok) return built.error;

    const limit = config.maxRequestsPerMinute;
    if (typeof limit === 'number' && limit > 0) {
      const key = options.rateLimitKey ?? `${card.name}\u0000${baseUrl}`;
      if (!(await this.limiter.tryAcquire(key, limit))) return 'Error: rate limit reached';
    }

    const outcome = await inSpan(`webhook ${route.name}`, { 'fathom.webhook.route': route.name, 'http.request.method': built.method }, () =>
      sendWithRetries({
        egress: this.options.egress,
        url: built.url,
        method: built.method,
        headers: built.headers,
        body: built.body,
        timeoutMs: config.timeout && config.timeout > 0 ? config.timeout : DEFAULT_TIMEOUT_MS,
        maxBytes: this.options.maxResponseBytes ?? 5 * 1024 * 1024,
        retries: config.retryOnError === false ? 0 : Math.max(0, Math.floor(config.maxRetries ?? DEFAULT_MAX_RETRIES)),
        sleep: this.sleep,
        signal: options.signal,
      }),
    );
    // `blocked`: the egress guard refused the destination (the call never left).
    metrics.webhookCalls.inc({
      outcome: outcome.ok ? (outcome.response.status < 400 ? 'success' : 'error') : outcome.blocked ? 'blocked' : 'error',
    });
    if (!outcome.ok) return outcome.error;
    return formatResponse(outcome.response.status, outcome.response.text(), route.responseMapping, {
      maxChars: this.options.maxResultChars ?? MAX_TOOL_RESULT_CHARS,
      maxMatches: MAX_MAPPING_MATCHES,
      renderOffThread: (task) => this.mappings.render(task, options.signal),
    });
  }
}

/** A route by its own name, or by its sanitized tool name. */
function findRoute(routes: WebhookRoute[], name: string): WebhookRoute | undefined {
  return (
    routes.find((route) => route?.name === name) ??
    routes.find((route) => route?.name && sanitizeToolName(route.name) === sanitizeToolName(name))
  );
}
