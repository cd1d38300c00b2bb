import type { Embedder } from './embedder';
import { alignTokens } from './token-offsets';

export interface TransformersEmbedderOptions {
  /** Model id in transformers.js layout; `FATHOM_EMBEDDING_MODEL`, default `Xenova/all-MiniLM-L6-v2`. */
  modelId?: string;
  /** Directory of local models (`<id>/config.json`, `<id>/tokenizer.json`, `<id>/onnx/model.onnx`); `FATHOM_MODELS_DIR`. */
  modelsDir: string;
  /** Download a missing model from the hub into `modelsDir`; `FATHOM_ALLOW_REMOTE_MODELS`, default false here. */
  allowRemoteModels?: boolean;
  /** Input window override in tokens; `FATHOM_EMBEDDING_MAX_TOKENS`; default the tokenizer's limit (at most 512) minus 2 special tokens. */
  maxInputTokens?: number;
  /** Texts per inference call; default 32. */
  batchSize?: number;
  /** ONNX weights variant: `fp32` (model.onnx, the default) or `q8` (model_quantized.onnx). */
  dtype?: 'fp32' | 'q8';
}

type FeatureExtractor = {
  (texts: string[], options: { pooling: 'mean'; normalize: boolean }): Promise<{ data: Float32Array; dims: number[] }>;
  tokenizer: { tokenize(text: string): string[]; model_max_length?: number };
  dispose(): Promise<void>;
};

/** Points transformers.js at `modelsDir` for both local loading and the download cache. */
export async function configureTransformers(modelsDir: string, allowRemoteModels: boolean) {
  const transformers = await import('@huggingface/transformers');
  const { env } = transformers;
  env.allowLocalModels = true;
  env.localModelPath = modelsDir.endsWith('/') ? modelsDir : `${modelsDir}/`;
  env.cacheDir = modelsDir;
  env.useFSCache = true;
  env.allowRemoteModels = allowRemoteModels;
  return transformers;
}

/**
 * Local ONNX sentence embeddings through @huggingface/transformers (onnxruntime-node): mean pooling
 * over the last hidden state, L2-normalised, batched. Tokens are counted and cut with the model's
 * own tokenizer. Inference runs in onnxruntime's native thread pool.
 */
export class TransformersEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly maxInputTokens: number;

  private constructor(
    private readonly extractor: FeatureExtractor,
    readonly modelId: string,
    dimensions: number,
    maxInputTokens: number,
    private readonly batchSize: number,
  ) {
    this.id = `transformers:${modelId}`;
    this.dimensions = dimensions;
    this.maxInputTokens = maxInputTokens;
  }

  /** Loads the model and tokenizer (throws when they are missing and remote models are not allowed). */
  static async load(options: TransformersEmbedderOptions): Promise<TransformersEmbedder> {
    const modelId = options.modelId ?? 'Xenova/all-MiniLM-L6-v2';
    const { pipeline } = await configureTransformers(options.modelsDir, options.allowRemoteModels ?? false);
    const extractor = (await pipeline('feature-extraction', modelId, {
      dtype: options.dtype ?? 'fp32',
    })) as unknown as FeatureExtractor;
    const probe = await extractor(['dimension probe'], { pooling: 'mean', normalize: true });
    const dimensions = probe.dims.at(-1)!;
    const limit = extractor.tokenizer.model_max_length;
    const window = options.maxInputTokens ?? Math.min(Number.isFinite(limit) && limit ? limit : 512, 512) - 2;
    return new TransformersEmbedder(extractor, modelId, dimensions, window, options.batchSize ?? 32);
  }

  async embed(options: { values: string[]; signal?: AbortSignal }): Promise<{ embeddings: Float32Array[] }> {
    const embeddings: Float32Array[] = [];
    for (let start = 0; start < options.values.length; start += this.batchSize) {
      options.signal?.throwIfAborted();
      const batch = options.values.slice(start, start + this.batchSize).map((value) => value || ' ');
      const output = await this.extractor(batch, { pooling: 'mean', normalize: true });
      for (let row = 0; row < batch.length; row++) {
        embeddings.push(output.data.slice(row * this.dimensions, (row + 1) * this.dimensions));
      }
    }
    return { embeddings };
  }

  countTokens(text: string): number {
    return this.extractor.tokenizer.tokenize(text).length;
  }

  tokenize(text: string): Array<{ start: number; end: number }> {
    return alignTokens(text, this.extractor.tokenizer.tokenize(text));
  }

  async close(): Promise<void> {
    await this.extractor.dispose();
  }
}
