/** Small in-memory fakes of the Embedder and VectorIndex contracts for the documents unit tests. */
import type { Embedder } from '../../embeddings';
import type { IndexedChunk, SearchHit, StoreSearchOptions, VectorIndexContract } from '../../vector';

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

/** Keeps chunks per store and file; search scores by shared words. */
export class FakeVectorIndex implements VectorIndexContract {
  readonly stores = new Map<string, Map<string, StoredFile>>();

  async addFileChunks(input: Parameters<VectorIndexContract['addFileChunks']>[0]): Promise<void> {
    if (!this.stores.has(input.storeId)) this.stores.set(input.storeId, new Map());
    this.stores.get(input.storeId)!.set(input.fileId, { filename: input.filename, attributes: input.attributes, chunks: input.chunks });
  }
  async removeFile(storeId: string, fileId: string): Promise<void> {
    this.stores.get(storeId)?.delete(fileId);
  }
  async removeStore(storeId: string): Promise<void> {
    this.stores.delete(storeId);
  }
  setAttributes(storeId: string, fileId: string, attributes: Record<string, string | number | boolean> | null): void {
    const file = this.stores.get(storeId)?.get(fileId);
    if (file) file.attributes = attributes;
  }
  fileChunks(storeId: string, fileId: string): string[] {
    return (
      this.stores
        .get(storeId)
        ?.get(fileId)
        ?.chunks.map((chunk) => chunk.text) ?? []
    );
  }
  async search(storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]> {
    const words = new Set(([] as string[]).concat(options.query).join(' ').toLowerCase().match(/\w+/g) ?? []);
    const hits: SearchHit[] = [];
    for (const storeId of storeIds) {
      for (const [fileId, file] of this.stores.get(storeId) ?? []) {
        for (const chunk of file.chunks) {
          const chunkWords = new Set(chunk.text.toLowerCase().match(/\w+/g) ?? []);
          const shared = [...words].filter((w) => chunkWords.has(w)).length;
          if (shared) {
            hits.push({
              file_id: fileId,
              filename: file.filename,
              score: shared / words.size,
              attributes: file.attributes,
              content: [{ type: 'text', text: chunk.text }],
            });
          }
        }
      }
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, options.maxNumResults ?? 10);
  }
  async close(): Promise<void> {}
}
