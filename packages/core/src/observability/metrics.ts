import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Buckets the GenAI semantic conventions advise for `gen_ai.client.operation.duration`, seconds. */
const OPERATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
/** Buckets the GenAI semantic conventions advise for `gen_ai.client.token.usage`, tokens. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
/** Buckets the GenAI semantic conventions advise for `gen_ai.server.time_to_first_token`, seconds. */
const FIRST_TOKEN_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];
/** HTTP and search latencies, seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Fathom's Prometheus metrics (docs/operations.md lists them; their names and labels are a contract
 * dashboards are built on). One registry per process: counters and histograms count what this process
 * did, so each node of a cluster reports its own series; the database-wide gauges (queue depth and lag)
 * are set from the database when `/metrics` is scraped, so they carry no per-node double counting.
 */
export class FathomMetrics {
  readonly registry = new Registry();
  #defaults = false;

  readonly httpRequests = new Counter({
    name: 'fathom_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: 'fathom_http_request_duration_seconds',
    help: 'Time from a request arriving to its answer finishing, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly genAiDuration = new Histogram({
    name: 'gen_ai_client_operation_duration_seconds',
    help: 'GenAI operation duration (gen_ai.client.operation.duration): each upstream model call.',
    labelNames: ['gen_ai_operation_name', 'gen_ai_provider_name', 'gen_ai_request_model', 'error_type'] as const,
    buckets: OPERATION_BUCKETS,
    registers: [this.registry],
  });
  readonly genAiTokens = new Histogram({
    name: 'gen_ai_client_token_usage',
    help: 'Tokens per upstream model call (gen_ai.client.token.usage), by token type input or output.',
    labelNames: ['gen_ai_token_type', 'gen_ai_provider_name', 'gen_ai_request_model'] as const,
    buckets: TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly timeToFirstToken = new Histogram({
    name: 'gen_ai_server_time_to_first_token_seconds',
    help: 'Time from a streamed model call starting to its first content (gen_ai.server.time_to_first_token).',
    labelNames: ['gen_ai_request_model'] as const,
    buckets: FIRST_TOKEN_BUCKETS,
    registers: [this.registry],
  });
  readonly modelCost = new Counter({
    name: 'fathom_model_cost_total',
    help: 'What model calls cost, in currency units, by model.',
    labelNames: ['model'] as const,
    registers: [this.registry],
  });
  readonly ingestionQueueDepth = new Gauge({
    name: 'fathom_ingestion_queue_depth',
    help: 'Vector store files waiting to be ingested (database-wide, read at scrape time).',
    registers: [this.registry],
  });
  readonly ingestedChunks = new Counter({
    name: 'fathom_ingested_chunks_total',
    help: 'Chunks this process ingested into vector stores.',
    registers: [this.registry],
  });
  readonly ingestionFailures = new Counter({
    name: 'fathom_ingestion_failures_total',
    help: 'Files whose ingestion failed, by error code.',
    labelNames: ['code'] as const,
    registers: [this.registry],
  });
  readonly searchDuration = new Histogram({
    name: 'fathom_search_duration_seconds',
    help: 'Vector store searches, by mode (hybrid, vector, keyword).',
    labelNames: ['mode'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });
  readonly toolJobs = new Counter({
    name: 'fathom_tool_jobs_total',
    help: 'Data-tool jobs that ended, by tool and final status.',
    labelNames: ['tool', 'status'] as const,
    registers: [this.registry],
  });
  readonly money = new Counter({
    name: 'fathom_money_total',
    help: 'Money moved in the ledger, in currency units, by kind (reserve, charge, release, credit).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly webhookCalls = new Counter({
    name: 'fathom_webhook_calls_total',
    help: 'Webhook route calls, by outcome (success, error, blocked).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly mcpCalls = new Counter({
    name: 'fathom_mcp_calls_total',
    help: 'Calls to MCP servers, by outcome (success, error).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });
  readonly egressBlocked = new Counter({
    name: 'fathom_egress_blocked_total',
    help: 'Outbound calls the egress guard refused.',
    registers: [this.registry],
  });
  readonly leaseQueueDepth = new Gauge({
    name: 'fathom_lease_queue_depth',
    help: 'Rows waiting to be claimed in a lease queue, by kind (database-wide, read at scrape time).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly leaseQueueLag = new Gauge({
    name: 'fathom_lease_queue_lag_seconds',
    help: 'Age of the oldest row waiting in a lease queue, by kind (database-wide, read at scrape time).',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  readonly leasesExpired = new Counter({
    name: 'fathom_leases_expired_total',
    help: 'Work this process took over from an expired lease (a node that stopped), by kind.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  /** The Prometheus text exposition of every metric, with prom-client's process and Node.js metrics. */
  async scrape(): Promise<string> {
    if (!this.#defaults) {
      this.#defaults = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return this.registry.metrics();
  }

  /** The content type of `scrape()`'s text. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

/**
 * This process's metrics. One per process on purpose: Prometheus scrapes a process, and a counter counts
 * what the process did whichever `Fathom` instance (or test) did it.
 */
export const metrics = new FathomMetrics();
