// STUB (owner: vector/embeddings helper): replace with the real embedders.
import type { FathomConfig } from '../config';
import type { Logger } from '../internal/logger';
import type { Embedder } from './embedder';
export type { Embedder } from './embedder';

/** Builds the embedder chosen by `FATHOM_EMBEDDER` (transformers | openai | hash | auto). */
export async function createEmbedder(_config: FathomConfig, _log: Logger): Promise<Embedder> {
  const fail = () => {
    throw new Error('embedder not implemented yet');
  };
  return { id: 'stub', dimensions: 0, maxInputTokens: 0, embed: fail, countTokens: fail, tokenize: fail };
}
