import { resolveModelAlias, type FathomConfig, type ProviderConfig } from '../config';
import { newId } from '../internal/ids';
import { parseModelId } from './model-id';
import { AnthropicProvider } from './providers/anthropic/anthropic-provider';
import type { ChatProvider } from './providers/chat-provider';
import { OpenAICompatibleProvider } from './providers/openai-compatible/openai-compatible-provider';
import type { ChatAdapterContract, ChatCallOptions, ChatRequest, ChatResult, ChatStreamPart, ChatUsage } from './types';
import type { UsageStore } from './usage-store';

export interface ChatAdapterOptions {
  config: FathomConfig;
  /** Where each call's token usage is recorded for the calling account. */
  usage: Pick<UsageStore, 'record'>;
  /** Providers to use instead of those built from `config.providers` (tests). */
  providers?: ChatProvider[];
}

function createProvider(vendor: string, config: ProviderConfig, limits: { timeoutMs?: number; connections?: number }): ChatProvider {
  const options = { vendor, baseUrl: config.baseUrl, apiKey: config.apiKey, ...limits };
  return config.type === 'anthropic' ? new AnthropicProvider(options) : new OpenAICompatibleProvider(options);
}

/**
 * The one way every part of Fathom calls a model (internal: the composition root hands it to assistants,
 * Responses, agents, data tools and `fathom.chat.completions`): routes `<vendor>/<model>` to a
 * configured provider, streams typed parts, and records each call's token usage for the calling account.
 */
export class ChatAdapter implements ChatAdapterContract {
  private readonly providers = new Map<string, ChatProvider>();
  private readonly staticModels = new Map<string, string[]>();
  private readonly usageStore: Pick<UsageStore, 'record'>;
  private readonly config: FathomConfig;

  constructor(options: ChatAdapterOptions) {
    this.config = options.config;
    this.usageStore = options.usage;
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

  /** The provider of a configured vendor. */
  provider(vendor: string): ChatProvider | undefined {
    return this.providers.get(vendor);
  }

  /** The model names `FATHOM_PROVIDERS` lists for a vendor (its upstream is then not asked), if any. */
  configuredModels(vendor: string): readonly string[] | undefined {
    return this.staticModels.get(vendor);
  }

  /** The provider, upstream model name and full `<vendor>/<model>` id a model id routes to; 400 naming `model` when none. */
  route(model: string): { provider: ChatProvider; upstreamModel: string; modelId: string } {
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

  /** Closes the providers' connections. */
  async close(): Promise<void> {
    await Promise.all([...this.providers.values()].map((provider) => provider.close().catch(() => undefined)));
  }
}
