/** Small in-memory fakes of the Embedder and VectorIndex contracts for the documents unit tests. */
import type { Embedder } from '../../embeddings';
import { ConflictError } from '../../errors';
import type { IndexedChunk, SearchHit, StoreSearchOptions, VectorIndexContract, WriteFence } from '../../vector';
import { matchesAttributeFilter, validateAttributeFilter } from '../../vector/attribute-filter';
import { readSearchOptions } from '../../vector/search-options';

/** Words are tokens; vectors are hashed bags of words. */
export function fakeEmbedder(maxInputTokens = 512): Embedder & { calls: number } {
  const dims = 32;
  return {
    id: 'fake:v1',
    dimensions: dims,
    maxInputTokens,
    calls: 0,
    async embed({ values }) {
      this.calls++;
      return {
        embeddings: values.map((value) => {
          const vector = new Float32Array(dims);
          for (const word of value.toLowerCase().match(/\w+/g) ?? []) {
            let h = 0;
            for (const c of word) h = (h * 31 + c.charCodeAt(0)) >>> 0;
            vector[h % dims]! += 1;
          }
          const norm = Math.hypot(...vector) || 1;
          return vector.map((x) => x / norm);
        }),
      };
    },
    countTokens: (text) => (text.match(/\S+/g) ?? []).length,
    tokenize: (text) => [...text.matchAll(/\S+/g)].map((m) => ({ start: m.index!, end: m.index! + m[0].length })),
  };
}

interface StoredFile {
  filename: string;
  attributes: Record<string, string | number | boolean> | null;
  chunks: IndexedChunk[];
}

const words = (text: string) => text.toLowerCase().match(/\w+/g) ?? [];

/**
 * Keeps chunks per store and file; a chunk scores the share of the query's words it contains (0..1).
 * It keeps the contract the real indexes keep (the shared conformance suite checks it): options are
 * validated alike, `filters` and `scoreThreshold` apply, results are best first and at most
 * `maxNumResults`, each store remembers the embedder that built it.
 */
export class FakeVectorIndex implements VectorIndexContract {
  readonly stores: Map<string, Map<string, StoredFile>>;
  private readonly builtWith: Map<string, { embedderId: string; dimensions: number }>;

  /** `shared`: another fake whose chunks this one sees (the same database reopened with another embedder). */
  constructor(
    readonly embedderId = 'fake:v1',
    shared?: FakeVectorIndex,
  ) {
    this.stores = shared?.stores ?? new Map();
    this.builtWith = shared?.builtWith ?? new Map();
  }

  /**
   * The fake has no database to run a write fence's query on: `fenceHolds` answers for it (tests that
   * exercise fences give it; by default every fence holds).
   */
  fenceHolds: (fence: WriteFence) => boolean = () => true;

  async addFileChunks(input: Parameters<VectorIndexContract['addFileChunks']>[0]): Promise<boolean> {
    if (input.fence && !this.fenceHolds(input.fence)) return false;
    const dimensions = input.chunks[0]?.vector.length ?? 0;
    const built = this.builtWith.get(input.storeId);
    if (built && built.embedderId !== this.embedderId && this.chunkCount(input.storeId) > 0) {
      throw new ConflictError(`Vector store ${input.storeId} was indexed with the embedder '${built.embedderId}'.`, 'reindex_required');
    }
    this.builtWith.set(input.storeId, { embedderId: this.embedderId, dimensions });
    if (!this.stores.has(input.storeId)) this.stores.set(input.storeId, new Map());
    this.stores.get(input.storeId)!.set(input.fileId, { filename: input.filename, attributes: input.attributes, chunks: input.chunks });
    return true;
  }
  async removeFile(storeId: string, fileId: string): Promise<void> {
    this.stores.get(storeId)?.delete(fileId);
  }
  async removeStore(storeId: string): Promise<void> {
    this.stores.delete(storeId);
    this.builtWith.delete(storeId);
  }
  async setAttributes(storeId: string, fileId: string, attributes: Record<string, string | number | boolean> | null): Promise<void> {
    const file = this.stores.get(storeId)?.get(fileId);
    if (file) file.attributes = attributes;
  }
  async fileChunks(storeId: string, fileId: string): Promise<string[]> {
    return (
      this.stores
        .get(storeId)
        ?.get(fileId)
        ?.chunks.map((chunk) => chunk.text) ?? []
    );
  }
  async storeInfo(storeId: string) {
    const built = this.builtWith.get(storeId);
    return built ? { embedderId: built.embedderId, dimensions: built.dimensions, chunks: this.chunkCount(storeId) } : null;
  }
  async storesNotBuiltWith(embedderId: string): Promise<string[]> {
    return [...this.builtWith]
      .filter(([, built]) => built.embedderId !== embedderId)
      .map(([storeId]) => storeId)
      .sort();
  }
  async reindex(storeId: string): Promise<{ chunks: number }> {
    const built = this.builtWith.get(storeId);
    if (!built) return { chunks: 0 };
    built.embedderId = this.embedderId;
    return { chunks: this.chunkCount(storeId) };
  }
  async search(storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    const { queries, limit, threshold } = readSearchOptions(options);
    if (options.filters) validateAttributeFilter(options.filters);
    for (const storeId of storeIds) {
      const built = this.builtWith.get(storeId);
      // Like the real indexes: a store built by another embedder is queryable only if that embedder is a hash one.
      if (built && built.embedderId !== this.embedderId && !built.embedderId.startsWith('hash:') && this.chunkCount(storeId) > 0) {
        throw new ConflictError(`Vector store ${storeId} was indexed with the embedder '${built.embedderId}'.`, 'reindex_required');
      }
    }
    const best = new Map<IndexedChunk, SearchHit>();
    for (const query of queries) {
      const wanted = new Set(words(query));
      for (const storeId of new Set(storeIds)) {
        for (const [fileId, file] of this.stores.get(storeId) ?? []) {
          if (options.filters && !matchesAttributeFilter(options.filters, file.attributes)) continue;
          for (const chunk of file.chunks) {
            const present = new Set(words(chunk.text));
            const shared = [...wanted].filter((word) => present.has(word)).length;
            const score = wanted.size ? shared / wanted.size : 0;
            if (score <= 0 || score < threshold || (best.get(chunk)?.score ?? -1) >= score) continue;
            best.set(chunk, {
              file_id: fileId,
              filename: file.filename,
              score,
              attributes: file.attributes,
              content: [{ type: 'text', text: chunk.text }],
            });
          }
        }
      }
    }
    return [...best.values()].sort((a, b) => b.score - a.score).slice(0, limit);
  }
  async preload(): Promise<void> {}

  async close(): Promise<void> {}

  private chunkCount(storeId: string): number {
    let count = 0;
    for (const file of this.stores.get(storeId)?.values() ?? []) count += file.chunks.length;
    return count;
  }
}
