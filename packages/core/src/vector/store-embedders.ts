import { type Embedder, HashEmbedder } from '../embeddings';
import { ConflictError } from '../errors';

/** Prefix of a store's recorded embedder id while `fathom reindex` re-embeds it. */
export const REINDEX_MARK = 'reindexing:';

/** What a store records about the embedder that built it. */
export interface StoreEmbedderRecord {
  store_id: string;
  embedder_id: string;
}

/** The 409 for a store built by another embedder than `current` (or left half re-indexed). */
export function embedderMismatch(meta: StoreEmbedderRecord, current: string): ConflictError {
  if (meta.embedder_id.startsWith(REINDEX_MARK)) {
    return new ConflictError(
      `Vector store ${meta.store_id} is being re-indexed, or its re-indexing was interrupted. Run 'fathom reindex ${meta.store_id}' to finish it.`,
      'reindex_required',
    );
  }
  return new ConflictError(
    `Vector store ${meta.store_id} was indexed with the embedder '${meta.embedder_id}', but this installation runs '${current}'. ` +
      `Run 'fathom reindex ${meta.store_id}' to re-embed it with the current embedder, or start Fathom with the embedder that built it.`,
    'reindex_required',
  );
}

/**
 * Embeds a query with the embedder that built a store: the current one, or a model-free hash embedder
 * re-created from its recorded id (kept for later queries); any other embedder answers the 409.
 */
export class QueryEmbedders {
  readonly #others = new Map<string, Embedder>();

  constructor(private readonly current: Embedder) {}

  async embed(meta: StoreEmbedderRecord, query: string): Promise<Float32Array> {
    let embedder: Embedder | undefined = meta.embedder_id === this.current.id ? this.current : this.#others.get(meta.embedder_id);
    if (!embedder) {
      const hash = HashEmbedder.fromId(meta.embedder_id);
      if (!hash) throw embedderMismatch(meta, this.current.id);
      this.#others.set(meta.embedder_id, hash);
      embedder = hash;
    }
    const { embeddings } = await embedder.embed({ values: [query] });
    return embeddings[0]!;
  }
}
