import type { FathomConfig } from '../config';
import type { Logger } from '../internal/logger';
import type { Embedder } from './embedder';
import { HashEmbedder } from './hash-embedder';
import { OpenAICompatibleEmbedder, requestEmbeddings } from './openai-embedder';
import { TransformersEmbedder } from './transformers-embedder';

const DEFAULT_LOCAL_MODEL = 'Xenova/all-MiniLM-L6-v2';
const DEFAULT_OPENAI_MODEL = 'text-embedding-3-small';

/**
 * Builds the OpenAI-compatible embedder from `config.embeddingApi`: `FATHOM_EMBEDDING_BASE_URL` (else
 * `OPENAI_BASE_URL`, else api.openai.com), `FATHOM_EMBEDDING_API_KEY` (else `OPENAI_API_KEY`),
 * `FATHOM_EMBEDDING_MODEL` (default `text-embedding-3-small` for this embedder),
 * `FATHOM_EMBEDDING_DIMENSIONS` (else probed with one request), `FATHOM_EMBEDDING_MAX_TOKENS`,
 * `FATHOM_EMBEDDING_BATCH_SIZE`.
 */
export async function createOpenAICompatibleEmbedder(config: FathomConfig): Promise<OpenAICompatibleEmbedder> {
  const { baseUrl: baseURL, apiKey, maxInputTokens, batchSize } = config.embeddingApi;
  const model = config.embeddingModel !== DEFAULT_LOCAL_MODEL ? config.embeddingModel : DEFAULT_OPENAI_MODEL;
  let dimensions = config.embeddingApi.dimensions;
  if (dimensions === undefined) {
    const [probe] = await requestEmbeddings({ baseURL, apiKey, model }, ['dimension probe']);
    dimensions = probe!.length;
  }
  return new OpenAICompatibleEmbedder({
    baseURL,
    apiKey,
    model,
    dimensions,
    maxInputTokens,
    batchSize,
  });
}

/** Loads the local transformers.js model named by `FATHOM_EMBEDDING_MODEL` from `FATHOM_MODELS_DIR`. */
export function createTransformersEmbedder(config: FathomConfig): Promise<TransformersEmbedder> {
  return TransformersEmbedder.load({
    modelId: config.embeddingModel,
    modelsDir: config.modelsDir,
    allowRemoteModels: config.allowRemoteModels,
    maxInputTokens: config.embeddingApi.maxInputTokens,
  });
}

/**
 * Builds the embedder chosen by `FATHOM_EMBEDDER`: `transformers`, `openai`, `hash`, or `auto`
 * (transformers when its model loads, else hash with a warning saying how to get the model).
 */
export async function createEmbedder(config: FathomConfig, log: Logger): Promise<Embedder> {
  switch (config.embedder) {
    case 'hash':
      return new HashEmbedder();
    case 'openai':
      return createOpenAICompatibleEmbedder(config);
    case 'transformers':
      return createTransformersEmbedder(config);
    case 'auto': {
      try {
        const embedder = await createTransformersEmbedder(config);
        log.info(`Embedder: ${embedder.id} (${embedder.dimensions} dimensions) from ${config.modelsDir}.`);
        return embedder;
      } catch (error) {
        log.warn(
          `FATHOM_EMBEDDER=auto: the model ${config.embeddingModel} could not be loaded from ${config.modelsDir}` +
            `${config.allowRemoteModels ? ' or the model hub' : ' (remote models are disabled)'}: ${(error as Error).message}. ` +
            'Falling back to the model-free hash embedder (lexical and fuzzy matches only, no synonyms). ' +
            "Run 'fathom models pull' on a machine with internet access, or set FATHOM_EMBEDDER=openai, to get semantic search.",
        );
        return new HashEmbedder();
      }
    }
    default:
      throw new Error(`Unknown FATHOM_EMBEDDER '${config.embedder as string}'.`);
  }
}
