import type { Database } from '../db';
import type { IndexedChunk } from './types';
import { vectorToBlob } from './vector-blob';

/**
 * Rows per SQLite transaction when a file's chunks are written or deleted. One chunk row plus its FTS5
 * postings costs about 0.1 ms, so a batch holds the event loop for a few tens of ms at most.
 */
export const WRITE_BATCH_ROWS = 200;

export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Writes and deletes one file's chunk rows (and, through triggers, their FTS5 postings) in bounded
 * transactions, each started from a fresh turn of the event loop, so a file of any size never holds
 * the server for long. Every batch keeps `vector_index_meta` (chunk count, generation) in step with the
 * rows. While a file is being written or deleted its key is in `busy`: searches skip its rows, so a
 * file's chunks become visible together, once its last batch is written.
 */
export class ChunkWrites {
  private readonly busy = new Map<string, number>();
  private readonly sql;

  constructor(private readonly db: Database) {
    this.sql = {
      someIds: db.prepare<[string, string, number], { id: number }>('SELECT id FROM vector_chunks WHERE store_id = ? AND file_id = ? LIMIT ?'),
      deleteIds: db.prepare('DELETE FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))'),
      insertChunk: db.prepare('INSERT INTO vector_chunks (store_id, file_id, chunk_index, text, tokens, vector) VALUES (?, ?, ?, ?, ?, ?)'),
      bump: db.prepare('UPDATE vector_index_meta SET generation = generation + 1, chunk_count = chunk_count + ? WHERE store_id = ?'),
      generation: db.prepare<[string], { generation: number }>('SELECT generation FROM vector_index_meta WHERE store_id = ?'),
    };
  }

  /** Whether the file's rows are being written or deleted right now (searches skip them). */
  isBusy(storeId: string, fileId: string): boolean {
    return this.busy.size > 0 && this.busy.has(key(storeId, fileId));
  }

  /** Runs `task` with the file hidden from searches. */
  async hidden<T>(storeId: string, fileId: string, task: () => Promise<T>): Promise<T> {
    const k = key(storeId, fileId);
    this.busy.set(k, (this.busy.get(k) ?? 0) + 1);
    try {
      return await task();
    } finally {
      const left = this.busy.get(k)! - 1;
      if (left > 0) this.busy.set(k, left);
      else this.busy.delete(k);
    }
  }

  /** Deletes the file's rows batch by batch; returns their ids (HNSW labels) and the last generation. */
  async deleteFile(storeId: string, fileId: string, extra?: () => void): Promise<{ removed: number[]; generation: number }> {
    const removed: number[] = [];
    let generation = -1;
    for (let first = true; ; first = false) {
      if (!first) await yieldToEventLoop();
      const done = this.db.transaction(() => {
        const ids = this.sql.someIds.all(storeId, fileId, WRITE_BATCH_ROWS).map((row) => row.id);
        if (ids.length) this.sql.deleteIds.run(JSON.stringify(ids));
        if (ids.length < WRITE_BATCH_ROWS) extra?.();
        this.sql.bump.run(-ids.length, storeId);
        generation = this.sql.generation.get(storeId)?.generation ?? -1;
        removed.push(...ids);
        return ids.length < WRITE_BATCH_ROWS;
      })();
      if (done) return { removed, generation };
    }
  }

  /**
   * Inserts `chunks` batch by batch, handing each batch's ids to `onBatch` with the generation after it
   * (the caller queues the HNSW inserts). Returns every new id.
   */
  async insert(storeId: string, fileId: string, chunks: IndexedChunk[], onBatch: (ids: number[], start: number, generation: number) => Promise<void>): Promise<number[]> {
    const added: number[] = [];
    for (let start = 0; start < chunks.length; start += WRITE_BATCH_ROWS) {
      await yieldToEventLoop();
      const batch = chunks.slice(start, start + WRITE_BATCH_ROWS);
      const { ids, generation } = this.db.transaction(() => {
        const ids = batch.map((chunk) =>
          Number(this.sql.insertChunk.run(storeId, fileId, chunk.index, chunk.text, chunk.tokens, vectorToBlob(chunk.vector)).lastInsertRowid),
        );
        this.sql.bump.run(ids.length, storeId);
        return { ids, generation: this.sql.generation.get(storeId)!.generation };
      })();
      added.push(...ids);
      await onBatch(ids, start, generation);
    }
    return added;
  }
}

const key = (storeId: string, fileId: string) => `${storeId}\u0000${fileId}`;
