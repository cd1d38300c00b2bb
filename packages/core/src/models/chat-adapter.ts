import { resolveModelAlias, type FathomConfig, type ProviderConfig } from '../config';
import { newId } from '../internal/ids';
import { startModelCall } from '../observability/model-calls';
import { parseModelId } from './model-id';
import { AnthropicProvider } from './providers/anthropic/anthropic-provider';
import type { ChatProvider } from './providers/chat-provider';
import { OpenAICompatibleProvider } from './providers/openai-compatible/openai-compatible-provider';
import { inputTokensAtMost, tokensOfBytes } from './token-bounds';
import type {
  ChatAdapterContract,
  ChatCallOptions,
  ChatRequest,
  ChatResult,
  ChatStreamPart,
  ChatUsage,
  MeteredCall,
  ModelCallMeter,
} from './types';
import type { UsageStore } from './usage-store';
import type { LatencyStore } from './latency-store';

export interface ChatAdapterOptions {
  config: FathomConfig;
  /** Where each call's token usage is recorded for the calling account. */
  usage: Pick<UsageStore, 'record'>;
  /** Providers to use instead of those built from `config.providers` (tests). */
  providers?: ChatProvider[];
  /** Charges each call made for an account (hold, capture, release); none = calls are not charged. */
  meter?: ModelCallMeter;
  /** Where each answered call's duration is recorded for the calling account (`GET /v1/usage/latency`). */
  latency?: Pick<LatencyStore, 'record'>;
}

const NOT_METERED: MeteredCall = { finish: async () => undefined };

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
  private readonly latency: Pick<LatencyStore, 'record'> | undefined;
  /** Set by the composition root once the meter exists (it needs the adapter's alias resolution). */
  meter: ModelCallMeter | undefined;

  constructor(options: ChatAdapterOptions) {
    this.config = options.config;
    this.meter = options.meter;
    this.usageStore = options.usage;
    this.latency = options.latency;
    const limits = { timeoutMs: options.config.modelCalls.timeoutMs, connections: options.config.modelCalls.connections };
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

  /**
   * The one seam of charging: before the upstream is called, the meter checks the key's model allow-list
   * and holds the most a call made for an account can cost (403 or 429 `insufficient_quota` otherwise).
   */
  meterCall(modelId: string, request: ChatRequest, options: ChatCallOptions, stream = false): Promise<MeteredCall> {
    if (!this.meter || options.accountId === undefined || options.chargedByCaller) return Promise.resolve(NOT_METERED);
    const inputAtMost = inputTokensAtMost(request);
    return this.meter.start({
      accountId: options.accountId,
      modelId,
      inputTokensAtMost: inputAtMost,
      inputTokensEstimate: tokensOfBytes(inputAtMost),
      maxOutputTokens: request.max_completion_tokens ?? request.max_tokens,
      hasOutput: true,
      api: options.api,
      stream,
    });
  }

  async complete(request: ChatRequest, options: ChatCallOptions = {}): Promise<ChatResult> {
    const { provider, upstreamModel, modelId } = this.route(request.model);
    const metered = await this.meterCall(modelId, request, options);
    const call = startModelCall({ operation: 'chat', provider: provider.vendor, model: modelId, input: request.messages });
    let result: Omit<ChatResult, 'id' | 'model'>;
    const started = performance.now();
    try {
      result = await call.run(() => provider.complete(upstreamModel, request, options.signal));
    } catch (error) {
      call.fail(error);
      await metered.finish({ answered: false });
      throw error;
    }
    call.end({ usage: result.usage, finishReason: result.finishReason, output: result.message });
    this.usageStore.record(options.accountId, modelId, result.usage.prompt_tokens, result.usage.completion_tokens);
    this.latency?.record(options.accountId, modelId, performance.now() - started);
    await metered.finish({ answered: true, usage: result.usage });
    return { id: newId('chatcmpl-'), model: modelId, ...result };
  }

  /**
   * Streams typed parts. Routing errors throw at once; the upstream is contacted on the first
   * `next()`, so its errors (429, 5xx, unreachable) surface there before anything was streamed.
   */
  stream(request: ChatRequest, options: ChatCallOptions = {}): AsyncIterable<ChatStreamPart> {
    const { provider, upstreamModel, modelId } = this.route(request.model);
    const usageStore = this.usageStore;
    const latency = this.latency;
    const meterCall = () => this.meterCall(modelId, request, options, true);
    return (async function* () {
      let started = false;
      let recorded = false;
      let outputBytes = 0;
      const metered = await meterCall();
      let settled = false;
      const call = startModelCall({ operation: 'chat', provider: provider.vendor, model: modelId, input: request.messages, stream: true });
      let text = '';
      const sentAt = performance.now();
      const record = async (usage: ChatUsage | undefined, finishReason?: string) => {
        recorded = true;
        usageStore.record(options.accountId, modelId, usage?.prompt_tokens ?? 0, usage?.completion_tokens ?? 0);
        call.end({
          usage: usage ?? { prompt_tokens: 0, completion_tokens: 0 },
          finishReason,
          output: { role: 'assistant', content: text },
        });
        settled = true;
        await metered.finish({ answered: true, usage, outputBytes });
      };
      // Each step of the upstream stream runs with the call's span active: its request carries that span's traceparent.
      const parts = provider.stream(upstreamModel, request, options.signal)[Symbol.asyncIterator]();
      let drained = false;
      try {
        for (;;) {
          const next = await call.run(() => parts.next());
          if (next.done) {
            drained = true;
            break;
          }
          const part = next.value;
          started = true;
          if (part.type === 'text-delta') {
            call.firstToken();
            outputBytes += Buffer.byteLength(part.text);
            if (call.wantsOutput) text += part.text;
          } else if (part.type === 'tool-call-delta') {
            call.firstToken();
            outputBytes += Buffer.byteLength(part.argumentsDelta ?? '') + Buffer.byteLength(part.name ?? '');
          }
          // Recorded (and charged) before the finish part leaves, so a caller reading usage or the balance right after sees it.
          if (part.type === 'finish' && !recorded) {
            latency?.record(options.accountId, modelId, performance.now() - sentAt);
            await record(part.usage, part.finishReason);
          }
          yield part;
        }
      } catch (error) {
        drained = true;
        call.fail(error);
        throw error;
      } finally {
        // A consumer that stops early closes the upstream stream (as `for await` would).
        if (!drained) await parts.return?.();
        // A stream cut short (client gone, upstream failure) still counts as a call, charged for what it used.
        if (started && !recorded) await record(undefined);
        else if (!settled) await metered.finish({ answered: false });
        call.fail(new Error('stream ended early'));
      }
    })();
  }

  /** Closes the providers' connections. */
  async close(): Promise<void> {
    await Promise.all([...this.providers.values()].map((provider) => provider.close().catch(() => undefined)));
  }
}
