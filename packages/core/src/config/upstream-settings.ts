import { type Env, parsePositiveInteger } from './env-values';

/** How Fathom calls model providers (`FATHOM_MODEL_*`). */
export interface ModelCallSettings {
  /** `FATHOM_MODEL_TIMEOUT_MS`: wait for response headers, and the longest silence between body chunks; default 120000. */
  timeoutMs: number;
  /** `FATHOM_MODEL_CONNECTIONS`: most kept-alive connections per provider; unset = unlimited. */
  connections?: number;
}

/** The OpenAI-compatible embeddings service (`FATHOM_EMBEDDER=openai`) and the embedders' input window. */
export interface EmbeddingApiSettings {
  /** `FATHOM_EMBEDDING_BASE_URL`, else `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. */
  baseUrl: string;
  /** `FATHOM_EMBEDDING_API_KEY`, else `OPENAI_API_KEY`. */
  apiKey?: string;
  /** `FATHOM_EMBEDDING_DIMENSIONS`; unset = probed with one request. */
  dimensions?: number;
  /** `FATHOM_EMBEDDING_MAX_TOKENS`: input window of either embedder (transformers or openai). */
  maxInputTokens?: number;
  /** `FATHOM_EMBEDDING_BATCH_SIZE`: texts per request. */
  batchSize?: number;
}

function optionalPositiveInteger(env: Env, name: string): number | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : parsePositiveInteger(value, 1, name);
}

export function readModelCallSettings(env: Env): ModelCallSettings {
  return {
    timeoutMs: parsePositiveInteger(env.FATHOM_MODEL_TIMEOUT_MS, 120_000, 'FATHOM_MODEL_TIMEOUT_MS'),
    connections: optionalPositiveInteger(env, 'FATHOM_MODEL_CONNECTIONS'),
  };
}

export function readEmbeddingApiSettings(env: Env): EmbeddingApiSettings {
  return {
    baseUrl: env.FATHOM_EMBEDDING_BASE_URL || env.OPENAI_BASE_URL || 'https://api.openai.com/v1',
    apiKey: env.FATHOM_EMBEDDING_API_KEY || env.OPENAI_API_KEY || undefined,
    dimensions: optionalPositiveInteger(env, 'FATHOM_EMBEDDING_DIMENSIONS'),
    maxInputTokens: optionalPositiveInteger(env, 'FATHOM_EMBEDDING_MAX_TOKENS'),
    batchSize: optionalPositiveInteger(env, 'FATHOM_EMBEDDING_BATCH_SIZE'),
  };
}
