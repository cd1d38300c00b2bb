/**
 * Merges the segments of the keyword index (SQLite FTS5) while the store is not being written (issue 24).
 * FTS5 writes a segment per write transaction and merges them a few at a time (`automerge`), so a large store
 * ingested file by file keeps a dozen segments of different sizes, and every query term's postings are read
 * from each: at 1M chunks, 12 segments made the FTS5 part of a keyword search 1.4x what one merged segment costs
 * (docs/performance.md). After writes have stopped for `idleMs`, merge steps run, each a short write transaction
 * that writes about `stepPages` pages, with a pause between them, until FTS5 has nothing left to merge; a write
 * in between puts the rest off until the writes stop again. A process that opens a data dir checks once too.
 */
import type { Database } from '../db';

export interface FtsMergesOptions {
  /** Quiet time after the last write before merging starts (ms); default 5,000. */
  idleMs?: number;
  /**
   * Pages a merge step writes, about; default 64. Merging a 1M-chunk store's 10 segments took 459 steps of 3.4 ms
   * at p50, 47 ms at p99, 139 ms the first (3.7 s in all); 256 pages a step took 23 / 114 / 135 ms.
   */
  stepPages?: number;
  /** Pause between two steps (ms), so searches and writes are not held up; default 50. */
  pauseMs?: number;
  /** A step failed (the database busy past its timeout, closed): the merging stops until the next write. */
  onError?: (error: Error) => void;
}

export class FtsMerges {
  readonly #idleMs: number;
  readonly #stepPages: number;
  readonly #pauseMs: number;
  readonly #onError: (error: Error) => void;
  readonly #merge;
  readonly #changes;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(db: Database, options: FtsMergesOptions = {}) {
    this.#idleMs = options.idleMs ?? 5_000;
    this.#stepPages = options.stepPages ?? 64;
    this.#pauseMs = options.pauseMs ?? 50;
    this.#onError = options.onError ?? (() => {});
    this.#merge = db.prepare<[number]>("INSERT INTO vector_fts(vector_fts, rank) VALUES('merge', ?)");
    this.#changes = db.prepare<[], { changes: number }>('SELECT total_changes() AS changes');
    this.noteWrites();
  }

  /** Chunk rows were written: merging waits until the writes have stopped for the idle time. */
  noteWrites(): void {
    if (this.#closed) return;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#run(), this.#idleMs);
    this.#timer.unref();
  }

  /**
   * One merge step now; answers whether there may be more to merge. A negative page count merges segments of
   * every level, down to one; FTS5 changed fewer than two rows when it had nothing left to do.
   */
  step(): boolean {
    const before = this.#changes.get()!.changes;
    this.#merge.run(-this.#stepPages);
    return this.#changes.get()!.changes - before >= 2;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
  }

  #run(): void {
    if (this.#closed) return;
    let more: boolean;
    try {
      more = this.step();
    } catch (error) {
      this.#onError(error as Error);
      return;
    }
    if (!more) return;
    this.#timer = setTimeout(() => this.#run(), this.#pauseMs);
    this.#timer.unref();
  }
}
