import { resolveModelAlias, type FathomConfig, type ProviderConfig } from '../config';
import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import { newId } from '../internal/ids';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { embedWithFathom, isFathomEmbeddingModel } from './fathom-embeddings';
import { parseModelId } from './model-id';
import { AnthropicProvider } from './providers/anthropic/anthropic-provider';
import type { ChatProvider } from './providers/chat-provider';
import { OpenAICompatibleProvider } from './providers/openai-compatible/openai-compatible-provider';
import type {
  ChatAdapterContract,
  ChatCallOptions,
  ChatRequest,
  ChatResult,
  ChatStreamPart,
  ChatUsage,
  EmbeddingsRequest,
  EmbeddingsResult,
  UsageRow,
} from './types';
import { UsageStore, type UsageQuery } from './usage-store';

export interface ChatAdapterOptions {
  /** The database holding usage counts (SQLite or PostgreSQL). */
  db: SqlClient;
  config: FathomConfig;
  log: Logger;
  /** Fathom's own embedder, serving `/v1/embeddings` for models that name no vendor. */
  embedder?: Embedder;
  /** Providers to use instead of those built from `config.providers` (tests, embedding apps). */
  providers?: ChatProvider[];
}

/** A model `GET /v1/models` lists. */
export interface ModelEntry {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

/** How long `listModels()` reuses an upstream's answer, ms. */
const MODELS_CACHE_MS = 60_000;
const MODELS_TIMEOUT_MS = 5_000;

function createProvider(vendor: string, config: ProviderConfig, limits: { timeoutMs?: number; connections?: number }): ChatProvider {
  const options = { vendor, baseUrl: config.baseUrl, apiKey: config.apiKey, ...limits };
  return config.type === 'anthropic' ? new AnthropicProvider(options) : new OpenAICompatibleProvider(options);
}

/**
 * The one way every part of Fathom calls a model: routes `<vendor>/<model>` to a configured provider,
 * streams typed parts, and records each call's token usage for the calling account.
 */
export class ChatAdapter implements ChatAdapterContract {
  private readonly providers = new Map<string, ChatProvider>();
  private readonly staticModels = new Map<string, string[]>();
  private readonly modelsCache = new Map<string, { at: number; models: Promise<string[]> }>();
  private readonly usageStore: UsageStore;
  private readonly log: Logger;
  private readonly embedder?: Embedder;
  private readonly config: FathomConfig;

  constructor(options: ChatAdapterOptions) {
    this.log = options.log;
    this.config = options.config;
    this.embedder = options.embedder;
    this.usageStore = new UsageStore(options.db, { log: options.log });
    const limits = {
      timeoutMs: Number(options.config.env?.FATHOM_MODEL_TIMEOUT_MS) || undefined,
      connections: Number(options.config.env?.FATHOM_MODEL_CONNECTIONS) || undefined,
    };
    if (options.providers) for (const provider of options.providers) this.providers.set(provider.vendor, provider);
    else {
      for (const [vendor, provider] of Object.entries(options.config.providers)) {
        this.providers.set(vendor, createProvider(vendor, provider, limits));
        if (provider.models?.length) this.staticModels.set(vendor, provider.models);
      }
    }
  }

  /** Configured vendor names, e.g. `['openai', 'anthropic', 'ollama']`. */
  vendors(): string[] {
    return [...this.providers.keys()];
  }

  /**
   * The `<vendor>/<model>` id a model id stands for: its `FATHOM_MODEL_ALIASES` entry, else
   * `<FATHOM_DEFAULT_VENDOR>/<id>` for an id without `/`, else the id itself.
   */
  resolveModel(model: string): string {
    return resolveModelAlias(model, this.config);
  }

  private route(model: string): { provider: ChatProvider; upstreamModel: string; modelId: string } {
    const modelId = this.resolveModel(model);
    const id = parseModelId(modelId, this.vendors());
    return { provider: this.providers.get(id.vendor)!, upstreamModel: id.model, modelId };
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResult> {
    const { provider, upstreamModel, modelId } = this.route(request.model);
    const result = await provider.complete(upstreamModel, request, options.signal);
    this.usageStore.record(options.accountId, modelId, result.usage.prompt_tokens, result.usage.completion_tokens);
    return { id: newId('chatcmpl-'), model: modelId, ...result };
  }

  /**
   * Streams typed parts. Routing errors throw at once; the upstream is contacted on the first
   * `next()`, so its errors (429, 5xx, unreachable) surface there before anything was streamed.
   */
  stream(request: ChatRequest, options: ChatCallOptions = {}): AsyncIterable<ChatStreamPart> {
    const { provider, upstreamModel, modelId } = this.route(request.model);
    const usageStore = this.usageStore;
    return (async function* () {
      let started = false;
      let recorded = false;
      const record = (usage: ChatUsage | undefined) => {
        recorded = true;
        usageStore.record(options.accountId, modelId, usage?.prompt_tokens ?? 0, usage?.completion_tokens ?? 0);
      };
      try {
        for await (const part of provider.stream(upstreamModel, request, options.signal)) {
          started = true;
          // Recorded before the finish part leaves, so a caller reading usage right after sees it.
          if (part.type === 'finish' && !recorded) record(part.usage);
          yield part;
        }
      } finally {
        // A stream cut short (client gone, upstream failure) still counts as a call.
        if (started && !recorded) record(undefined);
      }
    })();
  }

  /**
   * Every model of every provider as `<vendor>/<model>`: from config `models`, else asked upstream (cached 60 s).
   * Unreachable upstreams count as listing nothing (also cached 60 s). Each `FATHOM_MODEL_ALIASES` entry is
   * listed too, owned by the vendor it points to.
   */
  async listModels(): Promise<ModelEntry[]> {
    const lists = await Promise.all(
      this.vendors().map(async (vendor) => {
        const names = await this.vendorModels(vendor);
        return names.map((name) => ({ id: `${vendor}/${name}`, object: 'model' as const, created: 0, owned_by: vendor }));
      }),
    );
    const models = lists.flat();
    const listed = new Set(models.map((model) => model.id));
    for (const [alias, target] of Object.entries(this.config.modelAliases ?? {})) {
      if (!listed.has(alias)) models.push({ id: alias, object: 'model', created: 0, owned_by: target.slice(0, target.indexOf('/')) });
    }
    return models;
  }

  private vendorModels(vendor: string): Promise<string[]> {
    const fixed = this.staticModels.get(vendor);
    if (fixed) return Promise.resolve(fixed);
    const cached = this.modelsCache.get(vendor);
    if (cached && Date.now() - cached.at < MODELS_CACHE_MS) return cached.models;
    // A failure is cached like an answer (as an empty list), so an unreachable upstream costs one wait per minute.
    const models = this.providers
      .get(vendor)!
      .listModels(AbortSignal.timeout(MODELS_TIMEOUT_MS))
      .catch((error: Error) => {
        this.log.warn(`models: could not list models of '${vendor}': ${error.message}`);
        return [] as string[];
      });
    this.modelsCache.set(vendor, { at: Date.now(), models });
    return models;
  }

  /**
   * Embeddings: a model naming a configured vendor goes to that provider's `/embeddings`; a model
   * with no vendor (or Fathom's embedding model) is served by Fathom's own embedder.
   */
  async embed(raw: EmbeddingsRequest, options: ChatCallOptions = {}): Promise<EmbeddingsResult> {
    // `null` means absent, as OpenAI's schema allows on every optional field.
    const request = { ...raw, dimensions: raw.dimensions ?? undefined, user: raw.user ?? undefined };
    const inputs =
      Array.isArray(request.input) && typeof request.input[0] === 'number'
        ? [request.input as number[]]
        : Array.isArray(request.input)
          ? request.input
          : [request.input];
    if (inputs.length === 0) throw new InvalidRequestError(`Invalid 'input': expected at least one value.`, 'input');
    // An alias is an operator's explicit choice; otherwise an id without a vendor means Fathom's embedder.
    const resolved = resolveModelAlias(request.model, { modelAliases: this.config.modelAliases });
    const aliased = resolved !== request.model ? resolved : undefined;
    if (!aliased && isFathomEmbeddingModel(request.model, this.config, this.embedder, this.vendors())) {
      if (!this.embedder) throw new InvalidRequestError('This installation has no embedder configured.', 'model');
      const result = await embedWithFathom(this.embedder, inputs as string[] | number[][], request.dimensions, options.signal);
      this.usageStore.record(options.accountId, result.model, result.usage.prompt_tokens, 0);
      return result;
    }
    const { provider, upstreamModel, modelId } = this.route(aliased ?? request.model);
    if (!provider.embed)
      throw new InvalidRequestError(`Invalid 'model': vendor '${provider.vendor}' (${provider.type}) offers no embeddings.`, 'model');
    const result = await provider.embed(upstreamModel, inputs as string[] | number[][], {
      dimensions: request.dimensions,
      user: request.user,
      signal: options.signal,
    });
    this.usageStore.record(options.accountId, modelId, result.usage.prompt_tokens, 0);
    return { model: modelId, ...result };
  }

  /** Recorded token usage of one account per UTC day and model. */
  usage(accountId: string, query: UsageQuery = {}): Promise<UsageRow[]> {
    return this.usageStore.list(accountId, query);
  }

  async close(): Promise<void> {
    await this.usageStore.close().catch((error: Error) => this.log.warn(`models: usage counts lost at close: ${error.message}`));
    await Promise.all([...this.providers.values()].map((provider) => provider.close().catch(() => undefined)));
  }
}
