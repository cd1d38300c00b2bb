import type { SqliteDatabase } from '../storage';
import type { Attributes } from './attribute-filter';
import type { IndexedChunk } from './types';
import { blobToVector } from './vector-blob';

/** One store of an export: its embedder and its files, read one at a time. */
export interface ExportedStore {
  storeId: string;
  embedderId: string;
  dimensions: number;
  files: AsyncGenerator<{ fileId: string; filename: string; attributes: Attributes; chunks: IndexedChunk[] }>;
}

/**
 * Every indexed file of every store with its chunks and vectors, store by store (`fathom migrate-data`
 * copies them to PostgreSQL without re-embedding). Reads one file at a time.
 */
export async function* exportStores(db: SqliteDatabase['raw']): AsyncGenerator<ExportedStore> {
  const stores = db.prepare('SELECT store_id, embedder_id, dimensions FROM vector_index_meta ORDER BY store_id').all() as Array<{
    store_id: string;
    embedder_id: string;
    dimensions: number;
  }>;
  const filesOf = db.prepare('SELECT file_id, filename, attributes FROM vector_files WHERE store_id = ? ORDER BY file_id');
  const chunksOf = db.prepare(
    'SELECT chunk_index, text, tokens, vector FROM vector_chunks WHERE store_id = ? AND file_id = ? ORDER BY chunk_index',
  );
  for (const store of stores) {
    const files = async function* () {
      const rows = filesOf.all(store.store_id) as Array<{ file_id: string; filename: string; attributes: string | null }>;
      for (const file of rows) {
        const chunks = (
          chunksOf.all(store.store_id, file.file_id) as Array<{ chunk_index: number; text: string; tokens: number; vector: Buffer }>
        ).map((row) => ({ index: row.chunk_index, text: row.text, tokens: row.tokens, vector: blobToVector(row.vector) }));
        yield { fileId: file.file_id, filename: file.filename, attributes: file.attributes ? JSON.parse(file.attributes) : null, chunks };
      }
    };
    yield { storeId: store.store_id, embedderId: store.embedder_id, dimensions: store.dimensions, files: files() };
  }
}
