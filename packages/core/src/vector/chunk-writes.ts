import type { SqliteDatabase } from '../storage';
import type { IndexedChunk } from './types';
import { vectorToBlob } from './vector-blob';

/**
 * Rows per SQLite transaction when a file's chunks are written or deleted. One chunk row plus its FTS5
 * postings costs about 0.1 ms, so a batch holds the event loop for a few tens of ms at most.
 */
export const WRITE_BATCH_ROWS = 200;
/** ... and at most about this many ms of inserts. */
export const WRITE_BATCH_MS = 12;

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

  constructor(private readonly database: SqliteDatabase) {
    const db = database.raw;
    this.sql = {
      someIds: db.prepare<[string, string, number], { id: number }>(
        'SELECT id FROM vector_chunks WHERE store_id = ? AND file_id = ? LIMIT ?',
      ),
      deleteIds: db.prepare('DELETE FROM vector_chunks WHERE id IN (SELECT value FROM json_each(?))'),
      insertChunk: db.prepare('INSERT INTO vector_chunks (store_id, file_id, chunk_index, text, tokens, vector) VALUES (?, ?, ?, ?, ?, ?)'),
      bump: db.prepare('UPDATE vector_index_meta SET generation = generation + 1, chunk_count = chunk_count + ? WHERE store_id = ?'),
      generation: db.prepare<[string], { generation: number }>('SELECT generation FROM vector_index_meta WHERE store_id = ?'),
      deleteRanges: db.prepare('DELETE FROM vector_file_ranges WHERE store_id = ? AND file_id = ?'),
      insertRange: db.prepare('INSERT INTO vector_file_ranges (store_id, file_id, first_id, last_id) VALUES (?, ?, ?, ?)'),
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

  /**
   * Replaces the file's rows with `chunks`: old rows are deleted and new ones inserted at most
   * `WRITE_BATCH_ROWS` per transaction (a small file takes one transaction: the last deletions, `fileRow`
   * and the first insertions share it). The file's id ranges (`vector_file_ranges`) follow its rows: the
   * first transaction forgets them, each insert records its run of ids. After each transaction `graph`
   * gets the removed and added ids (HNSW labels) and the store's generation before and after it (equal
   * when it changed no row). With `holds`, the first transaction asks it first and, when it answers
   * false, nothing is written (answers false).
   */
  async replace(
    storeId: string,
    fileId: string,
    chunks: IndexedChunk[],
    fileRow: () => void,
    graph: (step: WriteStep) => Promise<void>,
    holds?: () => boolean,
  ): Promise<boolean> {
    let deleting = true;
    for (let start = 0, turn = 0; deleting || start < chunks.length; turn++) {
      if (turn > 0) await yieldToEventLoop();
      const step = await this.database.immediate((): WriteStep | undefined => {
        if (turn === 0 && holds && !holds()) return undefined;
        if (turn === 0) this.sql.deleteRanges.run(storeId, fileId);
        const before = this.sql.generation.get(storeId)?.generation ?? -1;
        let removed: number[] = [];
        if (deleting) {
          removed = this.sql.someIds.all(storeId, fileId, WRITE_BATCH_ROWS).map((row) => row.id);
          if (removed.length) this.sql.deleteIds.run(JSON.stringify(removed));
          deleting = removed.length === WRITE_BATCH_ROWS;
          if (!deleting) fileRow();
        }
        const from = start;
        const room = deleting ? 0 : WRITE_BATCH_ROWS - removed.length;
        const added: number[] = [];
        const began = performance.now();
        // Rows cost more as the FTS5 index grows and when other threads share the cores: stop at a time budget too.
        while (added.length < room && start < chunks.length && (added.length < 8 || performance.now() - began < WRITE_BATCH_MS)) {
          const chunk = chunks[start++]!;
          added.push(
            Number(
              this.sql.insertChunk.run(storeId, fileId, chunk.index, chunk.text, chunk.tokens, vectorToBlob(chunk.vector)).lastInsertRowid,
            ),
          );
        }
        for (const [first, last] of runsOf(added)) this.sql.insertRange.run(storeId, fileId, first, last);
        const changed = added.length > 0 || removed.length > 0;
        if (changed) this.sql.bump.run(added.length - removed.length, storeId);
        return { removed, added, start: from, before, after: changed ? before + 1 : before };
      });
      if (!step) return false;
      await graph(step);
    }
    return true;
  }
}

/** What one transaction of a file write changed, for the HNSW graph. */
export interface WriteStep {
  /** Chunk ids deleted and inserted (the graph's labels). */
  removed: number[];
  added: number[];
  /** Index in the written chunks of the first added one. */
  start: number;
  /** The store's generation before and after the transaction. */
  before: number;
  after: number;
}

/** Runs of consecutive ids, as `[first, last]` pairs (`ids` ascending). */
export function runsOf(ids: readonly number[]): Array<[number, number]> {
  const runs: Array<[number, number]> = [];
  for (const id of ids) {
    const run = runs.at(-1);
    if (run && id === run[1] + 1) run[1] = id;
    else runs.push([id, id]);
  }
  return runs;
}

const key = (storeId: string, fileId: string) => `${storeId}\u0000${fileId}`;
