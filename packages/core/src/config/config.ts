import { resolve } from 'node:path';
import { type DocumentsSettings, readDocumentsSettings } from './documents-settings';

/** A configured model provider: `FATHOM_PROVIDERS` entries and the convenience variables. */
export interface ProviderConfig {
  type: 'openai' | 'anthropic';
  baseUrl: string;
  apiKey?: string;
  /** Optional static model list; otherwise `/v1/models` asks the upstream. */
  models?: string[];
}

/** Settings of design.md's Runtime contract. Every field has its env variable and default. */
export interface FathomConfig {
  /** `PORT`, default 8080. */
  port: number;
  /** `HOST`, default 127.0.0.1. */
  host: string;
  /** `AGENTS_PORT`: a second listener for the agent service; unset = same port. */
  agentsPort?: number;
  /** `FATHOM_DATA_DIR`, default `./.fathom` (absolute after loading). */
  dataDir: string;
  /** `FATHOM_API_KEY`: bootstrap key of the default account. */
  apiKey?: string;
  /** `FATHOM_DEFAULT_BALANCE`, default 100 currency units. */
  defaultBalance: number;
  /** `FATHOM_ADMIN_KEY`: enables the admin API with this bearer key. */
  adminKey?: string;
  /** `FATHOM_EMBEDDER`: transformers | openai | hash | auto (default auto). */
  embedder: 'transformers' | 'openai' | 'hash' | 'auto';
  /** `FATHOM_EMBEDDING_MODEL`, default `Xenova/all-MiniLM-L6-v2`. */
  embeddingModel: string;
  /** `FATHOM_MODELS_DIR`, default `<dataDir>/models`. */
  modelsDir: string;
  /** `FATHOM_ALLOW_REMOTE_MODELS`, default true. */
  allowRemoteModels: boolean;
  /** `FATHOM_PROVIDERS` plus `OPENAI_API_KEY`/`OPENAI_BASE_URL`, `ANTHROPIC_API_KEY`, and `ollama`. */
  providers: Record<string, ProviderConfig>;
  /** `AGENT_EGRESS_ALLOW`: hosts/IPs (optionally host:port) allowed although private or loopback. */
  egressAllow: string[];
  /** `FATHOM_DATABASE_URL`: `postgres://…` keeps all durable state in PostgreSQL with pgvector; unset = SQLite under `dataDir`. */
  databaseUrl?: string;
  /** `FATHOM_DATABASE_POOL_SIZE`: PostgreSQL connections per process, default 10. */
  databasePoolSize: number;
  /** `FATHOM_LEASE_SECONDS`: how long a process holds claimed background work without renewing it, default 30. */
  leaseSeconds: number;
  /** Ingestion, extraction, sweeps and query rewriting (`FATHOM_INGEST_*`, `FATHOM_EXTRACT_*`, …). */
  documents: DocumentsSettings;
  /** The environment the config was read from, for capability-specific settings (e.g. `FATHOM_TOOLS_MODEL`). */
  env: Readonly<Record<string, string | undefined>>;
}

function parseBoolean(value: string | undefined, fallback: boolean, name: string): boolean {
  if (value === undefined || value === '') return fallback;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new Error(`${name} must be true or false, got '${value}'.`);
}

function parseNumber(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === '') return fallback;
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) throw new Error(`${name} must be a number, got '${value}'.`);
  return parsed;
}

function parsePositiveInteger(value: string | undefined, fallback: number, name: string): number {
  const parsed = parseNumber(value, fallback, name);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`${name} must be a positive integer, got '${value}'.`);
  return parsed;
}

function parsePositiveNumber(value: string | undefined, fallback: number, name: string): number {
  const parsed = parseNumber(value, fallback, name);
  if (!(parsed > 0)) throw new Error(`${name} must be a number > 0, got '${value}'.`);
  return parsed;
}

function parseDatabaseUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^postgres(ql)?:\/\/./i.test(value)) {
    throw new Error(`FATHOM_DATABASE_URL must be a postgres:// or postgresql:// URL, got '${value.replace(/\/\/[^@]*@/, '//***@')}'.`);
  }
  return value;
}

function parseProviders(env: Record<string, string | undefined>): Record<string, ProviderConfig> {
  const providers: Record<string, ProviderConfig> = {};
  if (env.OPENAI_API_KEY || env.OPENAI_BASE_URL) {
    providers.openai = {
      type: 'openai',
      baseUrl: env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
      apiKey: env.OPENAI_API_KEY,
    };
  }
  if (env.ANTHROPIC_API_KEY) {
    providers.anthropic = {
      type: 'anthropic',
      baseUrl: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com/v1',
      apiKey: env.ANTHROPIC_API_KEY,
    };
  }
  providers.ollama = { type: 'openai', baseUrl: env.OLLAMA_BASE_URL || 'http://127.0.0.1:11434/v1' };
  if (env.FATHOM_PROVIDERS) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(env.FATHOM_PROVIDERS);
    } catch (error) {
      throw new Error(`FATHOM_PROVIDERS is not valid JSON: ${(error as Error).message}`);
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('FATHOM_PROVIDERS must be a JSON object: vendor -> {type, baseUrl, apiKey?}.');
    }
    for (const [vendor, value] of Object.entries(parsed as Record<string, any>)) {
      if (!value || (value.type !== 'openai' && value.type !== 'anthropic') || typeof value.baseUrl !== 'string') {
        throw new Error(`FATHOM_PROVIDERS.${vendor} needs type "openai" or "anthropic" and a baseUrl string.`);
      }
      providers[vendor] = { type: value.type, baseUrl: value.baseUrl, apiKey: value.apiKey, models: value.models };
    }
  }
  return providers;
}

/** Reads the settings from `env` (default `process.env`), validating each with a message naming the variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env, overrides: Partial<FathomConfig> = {}): FathomConfig {
  const dataDir = resolve(overrides.dataDir ?? env.FATHOM_DATA_DIR ?? './.fathom');
  const embedder = (env.FATHOM_EMBEDDER || 'auto') as FathomConfig['embedder'];
  if (!['transformers', 'openai', 'hash', 'auto'].includes(embedder)) {
    throw new Error(`FATHOM_EMBEDDER must be transformers, openai, hash or auto, got '${embedder}'.`);
  }
  const agentsPort = env.AGENTS_PORT ? parseNumber(env.AGENTS_PORT, 0, 'AGENTS_PORT') : undefined;
  const config: FathomConfig = {
    port: parseNumber(env.PORT, 8080, 'PORT'),
    host: env.HOST || '127.0.0.1',
    agentsPort,
    dataDir,
    apiKey: env.FATHOM_API_KEY || undefined,
    defaultBalance: parseNumber(env.FATHOM_DEFAULT_BALANCE, 100, 'FATHOM_DEFAULT_BALANCE'),
    adminKey: env.FATHOM_ADMIN_KEY || undefined,
    embedder,
    embeddingModel: env.FATHOM_EMBEDDING_MODEL || 'Xenova/all-MiniLM-L6-v2',
    modelsDir: resolve(env.FATHOM_MODELS_DIR || resolve(dataDir, 'models')),
    allowRemoteModels: parseBoolean(env.FATHOM_ALLOW_REMOTE_MODELS, true, 'FATHOM_ALLOW_REMOTE_MODELS'),
    providers: parseProviders(env),
    databaseUrl: parseDatabaseUrl(env.FATHOM_DATABASE_URL),
    databasePoolSize: parsePositiveInteger(env.FATHOM_DATABASE_POOL_SIZE, 10, 'FATHOM_DATABASE_POOL_SIZE'),
    leaseSeconds: parsePositiveNumber(env.FATHOM_LEASE_SECONDS, 30, 'FATHOM_LEASE_SECONDS'),
    egressAllow: (env.AGENT_EGRESS_ALLOW || '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    documents: readDocumentsSettings(env),
    env: { ...env },
  };
  return { ...config, ...overrides, dataDir };
}
