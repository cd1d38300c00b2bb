import { join } from 'node:path';
import { Accounts, accountsSchema, bootstrapAccounts, type BootstrapResult } from './accounts';
import { AssistantRunner, assistantsSchema } from './assistants';
import { Agents, agentsSchema } from './agents';
import { loadConfig, type FathomConfig } from './config';
import { openDatabase, SqliteDatabase, type SqlDatabase } from './storage';
import { Documents, documentsSchema, modelQueryRewriter } from './documents';
import { EgressGuard } from './egress';
import { createEmbedder, type Embedder } from './embeddings';
import { consoleLogger, type Logger } from './internal/logger';
import { JobEngine, jobsSchema } from './jobs';
import { ChatAdapter, modelsSchema } from './models';
import { PgVectorIndex, VectorIndex, type VectorIndexContract, vectorSchema } from './vector';
import { WebhookToolkit } from './webhooks';

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
export const FATHOM_SCHEMAS = [accountsSchema, documentsSchema, vectorSchema, modelsSchema, assistantsSchema, jobsSchema, agentsSchema];

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
  readonly jobs: JobEngine;
  readonly webhooks: WebhookToolkit;
  readonly agents: Agents;

  private constructor(config: FathomConfig, log: Logger, embedder: Embedder, database: SqlDatabase, bootstrap: BootstrapResult) {
    this.config = config;
    this.log = log;
    this.database = database;
    this.accounts = new Accounts(database);
    this.bootstrap = bootstrap;
    // One line per capability; each owner edits only its own line.
    this.egress = new EgressGuard({ allow: config.egressAllow });
    this.embedder = embedder;
    this.vectorIndex =
      database instanceof SqliteDatabase
        ? new VectorIndex({ db: database, embedder, dataDir: config.dataDir, log })
        : new PgVectorIndex({ db: database, embedder, log });
    const rewriteModel = config.documents.queryRewriteModel;
    const rewriteQuery = rewriteModel
      ? modelQueryRewriter(
          async (messages, signal) => (await this.chat.complete({ model: rewriteModel, messages }, { signal })).message.content,
          (error) => log.warn(`query rewrite with ${rewriteModel} failed, searching the lexical rewrite: ${(error as Error).message}`),
        )
      : undefined;
    this.documents = new Documents({ db: database, config, embedder, vectorIndex: this.vectorIndex, log, rewriteQuery });
    if (!(database instanceof SqliteDatabase))
      throw new Error('PostgreSQL support is not complete yet: the models, assistants and agents capabilities still need SQLite.');
    const db = database.raw;
    this.chat = new ChatAdapter({ db, config, log, embedder });
    this.assistants = new AssistantRunner({ db, chat: this.chat, searcher: this.documents, log });
    this.jobs = new JobEngine({ db: database, config, accounts: this.accounts, chat: this.chat, egress: this.egress, log });
    this.webhooks = new WebhookToolkit({ egress: this.egress });
    this.agents = new Agents({ db, config, chat: this.chat, webhooks: this.webhooks, log });
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
    this.jobs.start();
    this.agents.start();
  }

  /** Stops background work and closes the database. */
  async close(): Promise<void> {
    await this.agents.close();
    await this.jobs.close();
    await this.assistants.close();
    await this.documents.close();
    await this.vectorIndex.close();
    await this.chat.close();
    await this.embedder.close?.();
    await this.egress.close();
    await this.database.close();
  }
}
