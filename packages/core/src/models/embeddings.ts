import { resolveModelAlias, type FathomConfig } from '../config';
import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { ChatAdapter } from './chat-adapter';
import { embedWithFathom, isFathomEmbeddingModel } from './fathom-embeddings';
import type { UsageStore } from './usage-store';
import type { CreateEmbeddingResponse, EmbeddingCreateParams } from './wire/embeddings';

export interface EmbeddingsOptions {
  router: Pick<ChatAdapter, 'vendors' | 'route'>;
  config: FathomConfig;
  usage: Pick<UsageStore, 'record'>;
  /** Fathom's own embedder (the one vector stores use), serving models that name no vendor. */
  embedder?: Embedder;
}

export interface EmbeddingRequestOptions {
  /** Aborts the upstream call, e.g. when the client that asked went away. */
  signal?: AbortSignal;
}

/**
 * `fathom.embeddings` (OpenAI's `embeddings`): a model naming a configured vendor goes to that
 * provider's `/embeddings`; a model with no vendor (or Fathom's embedding model) is served by Fathom's
 * own embedder. An alias is an operator's explicit choice and wins. Usage is recorded for the account.
 */
export class Embeddings {
  readonly #options: EmbeddingsOptions;

  constructor(options: EmbeddingsOptions) {
    this.#options = options;
  }

  async create(accountId: string, params: EmbeddingCreateParams, options: EmbeddingRequestOptions = {}): Promise<CreateEmbeddingResponse> {
    const { router, config, usage, embedder } = this.#options;
    const input = params.input;
    // One token array is one input; a list is one input per entry.
    const inputs: string[] | number[][] =
      typeof input === 'string' ? [input] : typeof input[0] === 'number' ? [input as number[]] : (input as string[] | number[][]);
    const dimensions = params.dimensions ?? undefined;
    let result: { model: string; embeddings: number[][]; usage: CreateEmbeddingResponse['usage'] };
    const aliased = resolveModelAlias(params.model, { modelAliases: config.modelAliases });
    if (aliased === params.model && isFathomEmbeddingModel(params.model, config, embedder, router.vendors())) {
      if (!embedder) throw new InvalidRequestError('This installation has no embedder configured.', 'model');
      result = await embedWithFathom(embedder, inputs, dimensions, options.signal);
    } else {
      const { provider, upstreamModel, modelId } = router.route(aliased);
      if (!provider.embed)
        throw new InvalidRequestError(`Invalid 'model': vendor '${provider.vendor}' (${provider.type}) offers no embeddings.`, 'model');
      const answer = await provider.embed(upstreamModel, inputs, { dimensions, user: params.user ?? undefined, signal: options.signal });
      result = { model: modelId, ...answer };
    }
    usage.record(accountId, result.model, result.usage.prompt_tokens, 0);
    const base64 = params.encoding_format === 'base64';
    return {
      object: 'list',
      model: result.model,
      data: result.embeddings.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
      })),
      usage: result.usage,
    };
  }
}
