import { resolve } from 'node:path';
import { parseBoolean, parseNumber, parsePositiveInteger, parsePositiveNumber } from './env-values';
import { type JobSettings, readJobSettings } from './tools-settings';
import { type BatchSettings, readBatchSettings } from './batch-settings';
import { parseModelAliases, type ModelAliasConfig } from './model-aliases';
import { parseModelPrices, type ModelPriceConfig } from './model-prices';
import { type DocumentsSettings, readDocumentsSettings } from './documents-settings';
import { type McpServerConfig, parseMcpServers } from './mcp-servers';
import { readVectorSettings, type VectorSettings } from './vector-settings';
import { readToolSourcesSettings, type ToolSourcesSettings } from './tool-sources-settings';
import { type EmbeddingApiSettings, type ModelCallSettings, readEmbeddingApiSettings, readModelCallSettings } from './upstream-settings';

/** A configured model provider: `FATHOM_PROVIDERS` entries and the convenience variables. */
export interface ProviderConfig {
  type: 'openai' | 'anthropic';
  baseUrl: string;
  apiKey?: string;
  /** Optional static model list; otherwise `/v1/models` asks the upstream. */
  models?: string[];
}

/** Fathom's settings (docs/configuration.md). Every field names its environment variable and default. */
export interface FathomConfig extends ModelAliasConfig, ModelPriceConfig {
  /** `PORT`, default 8080. */
  port: number;
  /** `HOST`, default 127.0.0.1. */
  host: string;
  /** `AGENTS_PORT`: a second listener for the agent service; unset = same port. */
  agentsPort?: number;
  /** `FATHOM_METRICS_PORT`: a listener serving only `GET /metrics`, without auth (a private network); unset = none. */
  metricsPort?: number;
  /** `FATHOM_LOG_BODIES`: request lines also carry the JSON body (prompts, documents); default false. */
  logBodies: boolean;
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
  /** `FATHOM_CONTEXT_TOKENS`: tokens a response with `truncation: "auto"` keeps, default 128000. */
  contextTokens: number;
  /** The data tools' settings (`FATHOM_TOOLS_*`). */
  tools: JobSettings;
  /** The Batch API's settings (`FATHOM_BATCH_*`). */
  batches: BatchSettings;
  /** `FATHOM_HOLD_OUTPUT_TOKENS`: output tokens a model call's hold counts when neither the request nor the price file bounds them, default 4096. */
  holdOutputTokens: number;
  /** `FATHOM_HOLD_SECONDS`: how long a model call's hold lasts before the sweep settles it as abandoned, default 3600. */
  holdSeconds: number;
  /** `FATHOM_LEASE_SECONDS`: how long a process holds claimed background work without renewing it, default 30. */
  leaseSeconds: number;
  /**
   * `FATHOM_WEB_SEARCH_URL` (an http(s) URL) and `FATHOM_WEB_SEARCH_KEY`: the search service behind the
   * agents' `web_search` built-in (`GET <url>?q=<query>`, the key as bearer token); unset = no `web_search`.
   */
  webSearch?: { url: string; key?: string };
  /** Ingestion, extraction, sweeps and query rewriting (`FATHOM_INGEST_*`, `FATHOM_EXTRACT_*`, …). */
  documents: DocumentsSettings;
  /** `FATHOM_MCP_SERVERS`: MCP servers the operator declares by label (remote URL or stdio command), default none. */
  mcpServers: Record<string, McpServerConfig>;
  /** The SQLite vector index: HNSW memory budget, search beam, exact-scan size (`FATHOM_HNSW_*`, `FATHOM_EXACT_SEARCH_CHUNKS`). */
  vector: VectorSettings;
  /** Timeout and connections of model provider calls (`FATHOM_MODEL_TIMEOUT_MS`, `FATHOM_MODEL_CONNECTIONS`). */
  modelCalls: ModelCallSettings;
  /** The OpenAI-compatible embeddings service and the embedders' input window (`FATHOM_EMBEDDING_*`). */
  embeddingApi: EmbeddingApiSettings;
  /** Where each data tool gets its data (`FATHOM_TOOLS_<TOOL>_*`, Apify, crawler, maps, social, nl-data). */
  toolSources: ToolSourcesSettings;
  /** The environment the config was read from (diagnostics); capabilities read the typed settings above, never this. */
  env: Readonly<Record<string, string | undefined>>;
}

function parseDatabaseUrl(value: string | undefined): string | undefined {
  if (!value) return undefined;
  if (!/^postgres(ql)?:\/\/./i.test(value)) {
    throw new Error(`FATHOM_DATABASE_URL must be a postgres:// or postgresql:// URL, got '${value.replace(/\/\/[^@]*@/, '//***@')}'.`);
  }
  return value;
}

function parseWebSearch(env: Record<string, string | undefined>): FathomConfig['webSearch'] {
  const url = env.FATHOM_WEB_SEARCH_URL;
  if (!url) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`FATHOM_WEB_SEARCH_URL must be an http:// or https:// URL, got '${url}'.`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`FATHOM_WEB_SEARCH_URL must be an http:// or https:// URL, got '${url}'.`);
  }
  return { url, ...(env.FATHOM_WEB_SEARCH_KEY ? { key: env.FATHOM_WEB_SEARCH_KEY } : {}) };
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
    for (const [vendor, value] of Object.entries(parsed as Record<string, unknown>)) {
      const entry = (value ?? {}) as { type?: unknown; baseUrl?: unknown; apiKey?: unknown; models?: unknown };
      if (!value || (entry.type !== 'openai' && entry.type !== 'anthropic') || typeof entry.baseUrl !== 'string') {
        throw new Error(`FATHOM_PROVIDERS.${vendor} needs type "openai" or "anthropic" and a baseUrl string.`);
      }
      const { apiKey, models } = entry;
      if (apiKey !== undefined && typeof apiKey !== 'string') throw new Error(`FATHOM_PROVIDERS.${vendor}.apiKey must be a string.`);
      if (models !== undefined && !(Array.isArray(models) && models.every((model) => typeof model === 'string'))) {
        throw new Error(`FATHOM_PROVIDERS.${vendor}.models must be an array of model names (strings).`);
      }
      providers[vendor] = { type: entry.type, baseUrl: entry.baseUrl, apiKey, models };
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
  const providers = parseProviders(env);
  const config: FathomConfig = {
    port: parseNumber(env.PORT, 8080, 'PORT'),
    host: env.HOST || '127.0.0.1',
    agentsPort,
    metricsPort: env.FATHOM_METRICS_PORT ? parseNumber(env.FATHOM_METRICS_PORT, 0, 'FATHOM_METRICS_PORT') : undefined,
    logBodies: ['1', 'true', 'yes'].includes((env.FATHOM_LOG_BODIES ?? '').toLowerCase()),
    dataDir,
    apiKey: env.FATHOM_API_KEY || undefined,
    defaultBalance: parseNumber(env.FATHOM_DEFAULT_BALANCE, 100, 'FATHOM_DEFAULT_BALANCE'),
    adminKey: env.FATHOM_ADMIN_KEY || undefined,
    embedder,
    embeddingModel: env.FATHOM_EMBEDDING_MODEL || 'Xenova/all-MiniLM-L6-v2',
    modelsDir: resolve(env.FATHOM_MODELS_DIR || resolve(dataDir, 'models')),
    allowRemoteModels: parseBoolean(env.FATHOM_ALLOW_REMOTE_MODELS, true, 'FATHOM_ALLOW_REMOTE_MODELS'),
    providers,
    ...parseModelAliases(env, providers),
    ...parseModelPrices(env),
    databaseUrl: parseDatabaseUrl(env.FATHOM_DATABASE_URL),
    databasePoolSize: parsePositiveInteger(env.FATHOM_DATABASE_POOL_SIZE, 10, 'FATHOM_DATABASE_POOL_SIZE'),
    contextTokens: parsePositiveInteger(env.FATHOM_CONTEXT_TOKENS, 128_000, 'FATHOM_CONTEXT_TOKENS'),
    tools: readJobSettings(env),
    batches: readBatchSettings(env),
    holdOutputTokens: parsePositiveInteger(env.FATHOM_HOLD_OUTPUT_TOKENS, 4096, 'FATHOM_HOLD_OUTPUT_TOKENS'),
    holdSeconds: parsePositiveInteger(env.FATHOM_HOLD_SECONDS, 3600, 'FATHOM_HOLD_SECONDS'),
    leaseSeconds: parsePositiveNumber(env.FATHOM_LEASE_SECONDS, 30, 'FATHOM_LEASE_SECONDS'),
    webSearch: parseWebSearch(env),
    egressAllow: (env.AGENT_EGRESS_ALLOW || '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean),
    documents: readDocumentsSettings(env),
    mcpServers: parseMcpServers(env),
    vector: readVectorSettings(env),
    modelCalls: readModelCallSettings(env),
    embeddingApi: readEmbeddingApiSettings(env),
    toolSources: readToolSourcesSettings(env),
    env: { ...env },
  };
  return { ...config, ...overrides, dataDir };
}
