import { join } from 'node:path';
import { Accounts, accountsSchema, bootstrapAccounts, type BootstrapResult } from './accounts';
import { AssistantRunner, assistantsSchema, threadStoresOf } from './assistants';
import { Agents, agentsSchema } from './agents';
import { loadConfig, type FathomConfig } from './config';
import { openDatabase, SqliteDatabase, type SqlDatabase } from './storage';
import { DocumentFileContents, Documents, documentsSchema, modelQueryRewriter } from './documents';
import { EgressGuard } from './egress';
import { createEmbedder, type Embedder } from './embeddings';
import { consoleLogger, type Logger } from './internal/logger';
import { JobEngine, jobsSchema } from './jobs';
import { Conversations, Responses, responsesSchema, SqlResponsesRepository } from './responses';
import { ChatAdapter, modelsSchema, StoredCompletions, storedCompletionsSchema } from './models';
import { PgVectorIndex, VectorIndex, type VectorIndexContract, vectorSchema } from './vector';
import { SqlRateLimiter, WebhookToolkit, webhooksSchema } from './webhooks';

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
  storedCompletionsSchema,
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
  readonly documents: Documents;
  readonly chat: ChatAdapter;
  readonly assistants: AssistantRunner;
  readonly responses: Responses;
  readonly storedCompletions: StoredCompletions;
  readonly conversations: Conversations;
  readonly jobs: JobEngine;
  readonly webhooks: WebhookToolkit;
  readonly agents: Agents;

  private constructor(config: FathomConfig, log: Logger, embedder: Embedder, database: SqlDatabase, bootstrap: BootstrapResult) {
    this.config = config;
    this.log = log;
    this.database = database;
    this.accounts = new Accounts(database);
    this.bootstrap = bootstrap;
    this.egress = new EgressGuard({ allow: config.egressAllow });
    this.embedder = embedder;
    this.chat = new ChatAdapter({ db: database, config, log, embedder });
    this.vectorIndex =
      database instanceof SqliteDatabase
        ? new VectorIndex({
            db: database,
            embedder,
            dataDir: config.dataDir,
            log,
            hnsw: { memoryBytes: config.vector.hnswMemoryMb * 1024 ** 2, efSearch: config.vector.hnswEfSearch },
            exactSearchLimit: config.vector.exactSearchChunks,
          })
        : new PgVectorIndex({ db: database, embedder, log });
    const rewriteModel = config.documents.queryRewriteModel;
    const rewriteQuery = rewriteModel
      ? modelQueryRewriter(
          async (messages, signal) => (await this.chat.complete({ model: rewriteModel, messages }, { signal })).message.content,
          (error) => log.warn(`query rewrite with ${rewriteModel} failed, searching the lexical rewrite: ${(error as Error).message}`),
        )
      : undefined;
    this.documents = new Documents({ db: database, config, embedder, vectorIndex: this.vectorIndex, log, rewriteQuery });
    this.assistants = new AssistantRunner({
      db: database,
      chat: this.chat,
      searcher: this.documents,
      stores: threadStoresOf(this.documents),
      log,
      leaseMs: config.leaseSeconds * 1000,
    });
    this.responses = new Responses({
      db: database,
      chat: this.chat,
      searcher: this.documents,
      files: new DocumentFileContents(this.documents),
      log,
      leaseMs: config.leaseSeconds * 1000,
      contextTokens: config.contextTokens,
    });
    this.storedCompletions = new StoredCompletions({ db: database });
    this.conversations = new Conversations({ db: database, responses: new SqlResponsesRepository(database) });
    this.jobs = new JobEngine({ db: database, config, accounts: this.accounts, chat: this.chat, egress: this.egress, log });
    this.webhooks = new WebhookToolkit({ egress: this.egress, rateLimiter: new SqlRateLimiter(database) });
    this.agents = new Agents({ db: database, config, chat: this.chat, webhooks: this.webhooks, log });
  }

  /** Loads settings, opens (and migrates) the database, bootstraps accounts and starts background work. */
  static async open(options: FathomOptions = {}): Promise<Fathom> {
    const config = loadConfig(options.env ?? process.env, options.config ?? {});
    const log = options.logger ?? consoleLogger;
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
      fathom = new Fathom(config, log, embedder, database, bootstrap);
    } catch (error) {
      await database.close();
      throw error;
    }
    if (options.start !== false) fathom.start();
    return fathom;
  }

  /** Resumes durable queues: interrupted ingestion, runs and jobs reach a terminal state. */
  start(): void {
    this.documents.start();
    this.assistants.start();
    this.responses.start();
    this.jobs.start();
    this.agents.start();
  }

  /** Stops background work and closes the database. */
  async close(): Promise<void> {
    // Background work first (it writes to the database), then what it used, the database last. A part
    // that fails to close does not keep the others, nor the database, open.
    const steps: Array<[string, () => unknown]> = [
      ['agents', () => this.agents.close()],
      ['webhooks', () => this.webhooks.close()],
      ['jobs', () => this.jobs.close()],
      ['assistants', () => this.assistants.close()],
      ['responses', () => this.responses.close()],
      ['documents', () => this.documents.close()],
      ['vector index', () => this.vectorIndex.close()],
      ['chat', () => this.chat.close()],
      ['embedder', () => this.embedder.close?.()],
      ['egress guard', () => this.egress.close()],
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
