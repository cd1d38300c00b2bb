import { join } from 'node:path';
import { Accounts, accountsSchema, bootstrapAccounts, type BootstrapResult, SqlAccountsRepository } from './accounts';
import { type Assistants, assistantsSchema, type Threads } from './assistants';
import { type AssistantsCapability, createAssistants } from './assistants/create-assistants';
import { threadStoresOf } from './assistants/documents-thread-stores';
import { type Agents, agentsSchema } from './agents';
import { Batches, batchesSchema } from './batches';
import { type AgentsCapability, createAgents } from './agents/create-agents';
import { McpCardClient } from './agents/mcp-card-client';
import { loadConfig, resolveModelAlias, type FathomConfig } from './config';
import { openDatabase, type SqlDatabase } from './storage';
import { documentsSchema, type Files, type VectorStores } from './documents';
import { DocumentsCapability } from './documents/documents-capability';
import { modelQueryRewriter } from './documents/query-rewrite';
import { EgressGuard } from './egress';
import { createEmbedder, type Embedder } from './embeddings';
import { consoleLogger, type Logger } from './internal/logger';
import { type DataTools, type Jobs, jobsSchema } from './jobs';
import { createDataTools, type DataToolsCapability } from './jobs/create-data-tools';
import { FathomMcpServer, mcpServerSchema, mcpSourcesOf } from './mcp-server';
import { type FathomMetrics, metrics, readQueueGauges, tracer } from './observability';
import { Conversations, type ResponseCreateParams, Responses, responsesSchema, SqlResponsesRepository } from './responses';
import { mcpApprovalsSchema } from './responses/mcp-approvals';
import {
  type Chat,
  type ChatCompletionCreateParamsNonStreaming,
  type EmbeddingCreateParams,
  type Embeddings,
  type Models,
  modelsSchema,
  storedCompletionsSchema,
  type Usage,
  modelLatencySchema,
  requestErrorsSchema,
} from './models';
import { createModels, type ModelsCapability } from './models/create-models';
import { openVectorIndex, type VectorIndexContract, vectorSchema } from './vector';
import { SqlRateLimiter, WebhookToolkit, webhooksSchema } from './webhooks';
import {
  type ChargingPath,
  chargingPathOf,
  KeyedWork,
  KeyRateLimits,
  SpendBatchBilling,
  SpendMeter,
  SqlModelCallsRepository,
  spendSchema,
} from './spend';

export interface FathomOptions {
  /** Environment to read settings from; default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Settings that win over the environment (e.g. `dataDir` in tests). */
  config?: Partial<FathomConfig>;
  /** Default: console. */
  logger?: Logger;
  /** Resume background work (ingestion queue, runs, jobs) right away; default true. */
  start?: boolean;
  /** Use this embedder instead of the one `FATHOM_EMBEDDER` selects (tests, embedding apps). */
  embedder?: Embedder;
  /** The clock of the per-key rate-limit windows, ms (tests); default `Date.now`. */
  clock?: () => number;
  /** How long a call's write waits to share a commit on SQLite, ms (tests); default `SHARE_COMMIT_MS`. */
  spendShareMs?: number;
}

/** Every capability's tables, in dependency order. */
export const FATHOM_SCHEMAS = [
  accountsSchema,
  documentsSchema,
  vectorSchema,
  modelsSchema,
  assistantsSchema,
  jobsSchema,
  agentsSchema,
  webhooksSchema,
  responsesSchema,
  mcpApprovalsSchema,
  storedCompletionsSchema,
  mcpServerSchema,
  batchesSchema,
  spendSchema,
  modelLatencySchema,
  requestErrorsSchema,
];

/**
 * Fathom embedded in a Node app: every capability wired over one database — SQLite under the data
 * dir, or PostgreSQL with pgvector when `FATHOM_DATABASE_URL` is set. This is the composition root:
 * the only place that knows which backend runs. `packages/http` serves exactly this object; an app
 * can use it with no HTTP at all.
 */
export class Fathom {
  readonly config: FathomConfig;
  /** The opened database (for diagnostics and tests; capabilities own their tables and SQL). */
  readonly database: SqlDatabase;
  readonly log: Logger;
  readonly accounts: Accounts;
  readonly bootstrap: BootstrapResult;
  readonly egress: EgressGuard;
  readonly embedder: Embedder;
  /** Hybrid search index: `VectorIndex` (HNSW worker + FTS5) on SQLite, `PgVectorIndex` (pgvector + full text) on PostgreSQL. */
  readonly vectorIndex: VectorIndexContract;
  /** Uploaded files (OpenAI's `files`). */
  readonly files: Files;
  /** Vector stores with their `files`, `fileBatches` and `search` (OpenAI's `vectorStores`). */
  readonly vectorStores: VectorStores;
  /** The documents capability: its sub-resources above, the search other capabilities use, its ingestion queue. */
  private readonly documents: DocumentsCapability;
  /** Chat completions (OpenAI's `chat.completions`, with `.messages` of stored ones). */
  readonly chat: Chat;
  /** Embeddings from a vendor's model or Fathom's own embedder (OpenAI's `embeddings`). */
  readonly embeddings: Embeddings;
  /** The models of the configured vendors and the aliases (OpenAI's `models`). */
  readonly models: Models;
  /** Charges every model call made for an account: prices, holds, captures, the sweep of abandoned holds. */
  readonly spend: SpendMeter;
  /** Per-key requests and tokens per minute (`rpm_limit`, `tpm_limit`), across processes. */
  readonly rateLimits: KeyRateLimits;
  /** Token usage per account, day and model (Fathom's own). */
  readonly usage: Usage;
  /** Assistants (OpenAI's `beta.assistants`). */
  readonly assistants: Assistants;
  /** Threads with their `messages`, `runs` and `runs.steps` (OpenAI's `beta.threads`). */
  readonly threads: Threads;
  readonly responses: Responses;
  readonly conversations: Conversations;
  /** The data-tool catalog. */
  readonly tools: DataTools;
  /** Data-tool jobs. */
  readonly jobs: Jobs;
  readonly webhooks: WebhookToolkit;
  /** Agents with their `versions`, `runs` and the tool preview (`tools`). */
  readonly agents: Agents;
  /** Batches of chat completions, responses or embeddings over JSONL files (OpenAI's `batches`). */
  readonly batches: Batches;
  /** Fathom as an MCP server: answers `/mcp` and `/v1/agents/{id}/mcp` (sessions in the database). */
  readonly mcpServer: FathomMcpServer;
  /** This process's Prometheus metrics (shared by every instance in the process); `scrapeMetrics()` reads them. */
  readonly metrics: FathomMetrics = metrics;
  /** The background execution of assistant runs (started and closed with the rest). */
  readonly #assistantRuns: Pick<AssistantsCapability, 'start' | 'close'>;
  /** The runner of data-tool jobs. */
  readonly #jobRunner: Pick<DataToolsCapability, 'start' | 'close'>;
  /** The worker that ends agent runs whose process stopped. */
  readonly #agentRuns: Pick<AgentsCapability, 'start' | 'close'>;
  /** The model router (internal: every capability's model calls) and the usage counts, closed with the rest. */
  readonly #modelsCapability: ModelsCapability;
  /** How charging reaches the database (SQLite: in process and written behind; PostgreSQL: committed first). */
  readonly #charging: ChargingPath;

  private constructor(
    config: FathomConfig,
    log: Logger,
    embedder: Embedder,
    database: SqlDatabase,
    bootstrap: BootstrapResult,
    clock?: () => number,
    spendShareMs?: number,
  ) {
    this.config = config;
    this.log = log;
    this.database = database;
    // Where SQLite and PostgreSQL part ways for charging: holds and windows in process, or committed first.
    const charging = chargingPathOf(database, log, { shareMs: spendShareMs });
    this.#charging = charging;
    // Views of money read through `charging.reads`: on SQLite they first write the queued charges.
    this.accounts = new Accounts(database, new SqlAccountsRepository(charging.reads), charging.pending, charging.reads);
    this.bootstrap = bootstrap;
    this.egress = new EgressGuard({ allow: config.egressAllow });
    this.embedder = embedder;
    this.rateLimits = new KeyRateLimits(database, clock, charging.windows());
    const modelCalls = new SqlModelCallsRepository(charging.reads);
    this.spend = new SpendMeter({
      repository: modelCalls,
      holds: charging.holds(this.accounts, modelCalls),
      db: database,
      accounts: this.accounts,
      prices: config,
      resolveModel: (model) => resolveModelAlias(model, config),
      holdOutputTokens: config.holdOutputTokens,
      holdSeconds: config.holdSeconds,
      log,
      alsoSweep: () => this.rateLimits.prune(),
    });
    const spend = this.spend;
    // Background work (a background response, a run taken over, a batch) is charged to the key that started it.
    const keyedWork = new KeyedWork(this.accounts, this.rateLimits);
    const models = createModels({
      db: database,
      config,
      log,
      embedder,
      meter: spend,
      usageGroups: (accountId, params) => spend.usage(accountId, params),
      keyLabels: (accountId, ids) => this.accounts.keys.labels(accountId, ids),
    });
    this.#modelsCapability = models;
    // The model router every capability calls; not a property of its own (`fathom.chat` is the chat completions).
    const router = models.router;
    this.chat = models.chat;
    this.embeddings = models.embeddings;
    this.models = models.models;
    this.usage = models.usage;
    this.vectorIndex = openVectorIndex({ db: database, embedder, dataDir: config.dataDir, log, settings: config.vector });
    const rewriteModel = config.documents.queryRewriteModel;
    const rewriteQuery = rewriteModel
      ? modelQueryRewriter(
          async (messages, signal) => (await router.complete({ model: rewriteModel, messages }, { signal })).message.content,
          (error) => log.warn(`query rewrite with ${rewriteModel} failed, searching the lexical rewrite: ${(error as Error).message}`),
        )
      : undefined;
    this.documents = new DocumentsCapability({ db: database, config, embedder, vectorIndex: this.vectorIndex, log, rewriteQuery });
    this.files = this.documents.files;
    this.vectorStores = this.documents.vectorStores;
    const assistants = createAssistants({
      db: database,
      chat: router,
      searcher: this.documents,
      stores: threadStoresOf(this.documents),
      log,
      leaseMs: config.leaseSeconds * 1000,
      runAsOrigin: keyedWork.run,
    });
    this.assistants = assistants.assistants;
    this.threads = assistants.threads;
    this.#assistantRuns = assistants;
    this.responses = new Responses({
      db: database,
      chat: router,
      searcher: this.documents,
      files: this.documents.fileContents,
      log,
      leaseMs: config.leaseSeconds * 1000,
      contextTokens: config.contextTokens,
      mcp: { fetch: this.egress.fetch, servers: config.mcpServers ?? {} },
      runAsOrigin: keyedWork.run,
    });
    this.conversations = new Conversations({
      db: database,
      responses: new SqlResponsesRepository(database),
      files: this.documents.fileContents,
    });
    const dataTools = createDataTools({ db: database, config, accounts: this.accounts, chat: router, egress: this.egress, log });
    this.tools = dataTools.tools;
    this.jobs = dataTools.jobs;
    this.#jobRunner = dataTools;
    this.webhooks = new WebhookToolkit({ egress: this.egress, rateLimiter: new SqlRateLimiter(database) });
    // MCP cards reach their servers through the egress guard; the agents capability closes the connections.
    const mcpCards = new McpCardClient({ fetch: this.egress.fetch, servers: config.mcpServers, log });
    const agents = createAgents({ db: database, config, chat: router, webhooks: this.webhooks, mcp: mcpCards, log });
    this.agents = agents.agents;
    this.#agentRuns = agents;
    this.batches = new Batches({
      db: database,
      files: this.files,
      // Each line runs the core method behind its synchronous route: same validation, routing, usage.
      endpoints: {
        '/v1/chat/completions': (accountId, body, signal) =>
          this.chat.completions.create(accountId, body as ChatCompletionCreateParamsNonStreaming, { signal }),
        '/v1/embeddings': (accountId, body, signal) => this.embeddings.create(accountId, body as EmbeddingCreateParams, { signal }),
        '/v1/responses': async (accountId, body, signal) =>
          (await this.responses.create(accountId, body as ResponseCreateParams, { signal })).response,
      },
      settings: config.batches,
      leaseMs: config.leaseSeconds * 1000,
      log,
      // One hold per batch, each line charged at the batch price to the key that created the batch.
      billing: new SpendBatchBilling({
        db: database,
        accounts: this.accounts,
        meter: spend,
        resolveModel: (model) => resolveModelAlias(model, config),
        holdOutputTokens: config.holdOutputTokens,
        keyedWork,
        rateLimits: this.rateLimits,
        log,
      }),
    });
    this.mcpServer = new FathomMcpServer({
      db: database,
      log,
      sources: mcpSourcesOf({
        files: this.files,
        vectorStores: this.vectorStores,
        searcher: this.documents,
        fileContents: this.documents.fileContents,
        tools: this.tools,
        jobs: this.jobs,
        agents: this.agents,
      }),
    });
  }

  /** Loads settings, opens (and migrates) the database, bootstraps accounts and starts background work. */
  static async open(options: FathomOptions = {}): Promise<Fathom> {
    const config = loadConfig(options.env ?? process.env, options.config ?? {});
    const log = options.logger ?? consoleLogger;
    // OpenTelemetry tracing when the standard OTEL_* settings name an OTLP endpoint (nothing loaded otherwise).
    await tracer.start(options.env ?? process.env);
    const database = await openDatabase({
      url: config.databaseUrl,
      location: join(config.dataDir, 'fathom.db'),
      schemas: FATHOM_SCHEMAS,
      poolSize: config.databasePoolSize,
    });
    let fathom: Fathom;
    try {
      const bootstrap = await bootstrapAccounts(new Accounts(database), config);
      const embedder = options.embedder ?? (await createEmbedder(config, log));
      fathom = new Fathom(config, log, embedder, database, bootstrap, options.clock, options.spendShareMs);
    } catch (error) {
      await database.close();
      throw error;
    }
    if (options.start !== false) fathom.start();
    return fathom;
  }

  /** Resumes durable queues: interrupted ingestion, runs and jobs reach a terminal state. */
  start(): void {
    // The largest stores' indexes open in the background: the first searches after a restart do not wait for them.
    void this.vectorIndex.preload();
    this.documents.start();
    this.#assistantRuns.start();
    this.responses.start();
    this.#jobRunner.start();
    this.#agentRuns.start();
    this.batches.start();
    this.spend.startSweeping();
  }

  /**
   * Starts the ingestion of store files alone (the `fathom ingest` CLI, an app that only ingests):
   * `start()` starts it with the rest of the background work.
   */
  startIngestion(): void {
    this.documents.start();
  }

  /**
   * The Prometheus text of this process's metrics, with the database-wide gauges (queue depth and lag)
   * read from the database now: what `GET /metrics` answers.
   */
  async scrapeMetrics(): Promise<string> {
    await readQueueGauges(this.database, this.metrics);
    return this.metrics.scrape();
  }

  /** Stops background work and closes the database. */
  async close(): Promise<void> {
    // Background work first (it writes to the database), then what it used, the database last. A part
    // that fails to close does not keep the others, nor the database, open.
    const steps: Array<[string, () => unknown]> = [
      ['batches', () => this.batches.close()],
      ['agents', () => this.#agentRuns.close()],
      ['spend', () => this.spend.close()],
      ['webhooks', () => this.webhooks.close()],
      ['jobs', () => this.#jobRunner.close()],
      ['assistants', () => this.#assistantRuns.close()],
      ['responses', () => this.responses.close()],
      ['documents', () => this.documents.close()],
      ['vector index', () => this.vectorIndex.close()],
      ['models', () => this.#modelsCapability.close()],
      ['embedder', () => this.embedder.close?.()],
      ['egress guard', () => this.egress.close()],
      ['spend writes', () => this.#charging.drain()],
      ['database', () => this.database.close()],
    ];
    const failures: unknown[] = [];
    for (const [name, close] of steps) {
      try {
        await close();
      } catch (error) {
        this.log.error(`closing ${name} failed`, error);
        failures.push(error);
      }
    }
    if (failures.length) throw new AggregateError(failures, `Fathom.close: ${failures.length} part(s) failed to close`);
  }
}
