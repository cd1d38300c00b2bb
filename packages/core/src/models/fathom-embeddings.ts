import type { FathomConfig } from '../config';
import type { Embedder } from '../embeddings';
import { InvalidRequestError } from '../errors';
import type { EmbeddingsResult } from './types';

/**
 * Whether an embeddings `model` means Fathom's own embedder: a name without `/` (e.g. `fathom`,
 * `text-embedding-3-small`), `FATHOM_EMBEDDING_MODEL` itself, or the embedder's id. Any other
 * `<vendor>/<model>` is routed to that vendor (unknown vendors answer 400).
 */
export function isFathomEmbeddingModel(
  model: string,
  config: FathomConfig,
  embedder: Embedder | undefined,
  vendors: readonly string[],
): boolean {
  if (model === config.embeddingModel || model === embedder?.id || model === 'fathom' || model.startsWith('fathom/')) return true;
  const slash = model.indexOf('/');
  return slash === -1 || (!vendors.includes(model.slice(0, slash)) && model === config.embeddingModel);
}

/** Embeds with Fathom's own embedder (the one vector stores use); token-array inputs are refused. */
export async function embedWithFathom(
  embedder: Embedder,
  inputs: string[] | number[][],
  dimensions: number | undefined,
  signal?: AbortSignal,
): Promise<EmbeddingsResult> {
  if (inputs.some((value) => typeof value !== 'string')) {
    throw new InvalidRequestError(`Invalid 'input': Fathom's embedder '${embedder.id}' takes strings, not token arrays.`, 'input');
  }
  // The schema made `dimensions` a whole number >= 1; what this embedder can give is known only here.
  if (dimensions !== undefined && dimensions > embedder.dimensions) {
    throw new InvalidRequestError(
      `Invalid 'dimensions': ${dimensions}. Fathom's embedder '${embedder.id}' produces ${embedder.dimensions} dimensions; ask for 1 to ${embedder.dimensions}.`,
      'dimensions',
    );
  }
  const values = inputs as string[];
  const empty = values.findIndex((value) => value.trim() === '');
  if (empty !== -1) {
    throw new InvalidRequestError(
      `Invalid 'input${typeof inputs === 'string' || values.length === 1 ? '' : `[${empty}]`}': the input is empty; an empty string has no embedding.`,
      'input',
    );
  }
  const { embeddings } = await embedder.embed({ values, signal });
  const tokens = values.reduce((sum, value) => sum + embedder.countTokens(value), 0);
  return {
    model: embedder.id,
    embeddings: embeddings.map((vector) => shorten(Array.from(vector), dimensions)),
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}

/**
 * The first `dimensions` components, L2-normalised again, as OpenAI's v3 models shorten embeddings:
 * cosine similarity between shortened vectors stays meaningful.
 */
export function shorten(vector: number[], dimensions: number | undefined): number[] {
  if (dimensions === undefined || dimensions >= vector.length) return vector;
  const head = vector.slice(0, dimensions);
  const norm = Math.hypot(...head);
  return norm > 0 ? head.map((value) => value / norm) : head;
}
