import type { SqlClient } from '../storage';
import type { Attributes } from './attribute-filter';
import { toTsvector } from './pg-keywords';
import { vectorLiteral } from './pg-vector-search';
import type { IndexedChunk, WriteFence } from './types';

/** Rows per INSERT when a file's chunks are written (each row carries a vector and a tsvector). */
const INSERT_ROWS = 100;

/**
 * Writes and removes a file's chunks on PostgreSQL. The chunks are inserted in statements of
 * `INSERT_ROWS` rows tagged with a new write id (a sequence), then published in one small transaction
 * that points `vector_files` at that write and keeps the store's chunk count exact; the file's older
 * rows are deleted after. Searches only read rows of the published write, so they see the old chunks
 * or the new ones, never a mix, and a write cut short by a crash leaves rows nobody points at, deleted
 * by the file's next write. Of two writes of one file, the later-started one wins. A write with a
 * fence publishes only if the fence's query returns a row inside the publishing transaction.
 */
export class PgChunkWrites {
  constructor(private readonly db: SqlClient) {}

  async write(input: {
    storeId: string;
    fileId: string;
    filename: string;
    attributes: Attributes;
    chunks: IndexedChunk[];
    dimensions: number;
    fence?: WriteFence;
  }): Promise<'published' | 'superseded' | 'fenced'> {
    const { storeId, fileId, chunks, dimensions } = input;
    const write = Number((await this.db.get<{ id: number }>("SELECT nextval('vector_write_ids') AS id"))!.id);
    for (let start = 0; start < chunks.length; start += INSERT_ROWS) {
      const rows = chunks.slice(start, start + INSERT_ROWS);
      await this.db.run(
        `INSERT INTO vector_chunks (store_id, file_id, write_id, chunk_index, text, tokens, dimensions, embedding, keywords)
         VALUES ${rows.map(() => '(?, ?, ?, ?, ?, ?, ?, CAST(? AS vector), CAST(? AS tsvector))').join(', ')}`,
        rows.flatMap((chunk) => [
          storeId,
          fileId,
          write,
          chunk.index,
          chunk.text,
          chunk.tokens,
          dimensions,
          vectorLiteral(chunk.vector),
          toTsvector(chunk.text),
        ]),
      );
    }
    const attributes = input.attributes ? JSON.stringify(input.attributes) : null;
    const outcome = await this.publish(storeId, fileId, write, chunks.length, input.filename, attributes, input.fence);
    // The rows of older writes of the file go now; a newer write that won keeps its own.
    await this.db.run(
      outcome === 'published'
        ? 'DELETE FROM vector_chunks WHERE store_id = ? AND file_id = ? AND write_id < ?'
        : 'DELETE FROM vector_chunks WHERE store_id = ? AND file_id = ? AND write_id = ?',
      [storeId, fileId, write],
    );
    return outcome;
  }

  /** Unpublishes the file (its chunks vanish from searches at once), then deletes its rows. */
  async remove(storeId: string, fileId: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      const removed = await tx.get<{ chunk_count: number }>(
        'DELETE FROM vector_files WHERE store_id = ? AND file_id = ? RETURNING chunk_count',
        [storeId, fileId],
      );
      if (removed) {
        await tx.run('UPDATE vector_index_meta SET chunk_count = chunk_count - ? WHERE store_id = ?', [removed.chunk_count, storeId]);
      }
    });
    await this.db.run('DELETE FROM vector_chunks WHERE store_id = ? AND file_id = ?', [storeId, fileId]);
  }

  /**
   * Points the file at `write` unless the fence no longer holds or a later-started write of it is
   * already published; keeps the store's chunk count in step.
   */
  private async publish(
    storeId: string,
    fileId: string,
    write: number,
    count: number,
    filename: string,
    attributes: string | null,
    fence: WriteFence | undefined,
  ): Promise<'published' | 'superseded' | 'fenced'> {
    for (;;) {
      const outcome = await this.db.transaction(async (tx) => {
        if (fence && !(await tx.get(fence.sql, fence.params))) return 'fenced';
        const current = await tx.get<{ write_id: number; chunk_count: number }>(
          'SELECT write_id, chunk_count FROM vector_files WHERE store_id = ? AND file_id = ? FOR UPDATE',
          [storeId, fileId],
        );
        if (current && Number(current.write_id) > write) return 'superseded';
        if (current) {
          await tx.run(
            'UPDATE vector_files SET filename = ?, attributes = ?, write_id = ?, chunk_count = ? WHERE store_id = ? AND file_id = ?',
            [filename, attributes, write, count, storeId, fileId],
          );
        } else {
          const inserted = await tx.run(
            `INSERT INTO vector_files (store_id, file_id, filename, attributes, write_id, chunk_count) VALUES (?, ?, ?, ?, ?, ?)
             ON CONFLICT (store_id, file_id) DO NOTHING`,
            [storeId, fileId, filename, attributes, write, count],
          );
          if (inserted.changes === 0) return 'retry'; // published meanwhile by another process: look again
        }
        await tx.run('UPDATE vector_index_meta SET chunk_count = chunk_count + ? WHERE store_id = ?', [
          count - Number(current?.chunk_count ?? 0),
          storeId,
        ]);
        return 'published';
      });
      if (outcome !== 'retry') return outcome;
    }
  }
}
