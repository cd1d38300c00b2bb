/**
 * Merges the segments of the keyword index (SQLite FTS5) while the store is not being written (issue 24).
 * FTS5 writes a segment per write transaction and merges them a few at a time (`automerge`), so a large store
 * ingested file by file keeps a dozen segments of different sizes, and every query term's postings are read
 * from each: at 1M chunks, 12 segments made a keyword search ~1.25x what one merged segment costs
 * (docs/decisions/2026-11-27-fts-segment-merges.md). After writes have stopped for `idleMs`, merge steps run,
 * each a short write transaction that writes about `stepPages` pages, with a pause between them, until FTS5
 * has nothing left to merge; a write in between puts the rest off until the writes stop again. A process that
 * opens a data dir checks once too.
 *
 * Merging to one segment rewrites the whole index (3.7 s of CPU at 1M chunks, and searches are slower while it
 * runs), so it is done only when the index needs it (`needsMerge`):
 * - while its largest segment holds less than `MERGE_BELOW_SHARE` of its pages: a store ingested in one go (12
 *   segments, the largest a quarter of the pages at 1M) is merged; a merged store that takes a few files more
 *   (small segments, which FTS5 merges among themselves) is not rewritten for them;
 * - when its tombstones pass `TOMBSTONE_BYTES`. Chunks deleted from a contentless FTS5 table (a file removed
 *   or replaced) stay in their segment, marked in a tombstone hash that every query reads: after 5,600 of a 1M
 *   store's chunks were replaced (60 KB of tombstones), its keyword search took 7.2 ms at p50 instead of 1.3.
 *   FTS5 purges a segment itself only once a tenth of its rows are deleted (`deletemerge`); merging drops them.
 *
 * The steps run in a worker thread on a connection of its own, so the event loop never waits for one (a step
 * takes 3 ms at p50 but up to ~140 ms at 1M chunks); readers are not blocked by it (WAL), writers wait for a
 * step at most. A database held only in memory (tests) is merged by steps on its own connection.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from '../db';

export interface FtsMergesOptions {
  /** Quiet time after the last write before merging starts (ms); default 5,000. */
  idleMs?: number;
  /**
   * Pages a merge step writes, about; default 64. Merging a 1M-chunk store's 10 segments took 459 steps of 3.4 ms
   * at p50, 47 ms at p99, 139 ms the first (3.7 s in all); 256 pages a step took 23 / 114 / 135 ms.
   */
  stepPages?: number;
  /** Tombstones past this many bytes make the index worth merging; default `TOMBSTONE_BYTES`. */
  tombstoneBytes?: number;
  /** Pause between two steps (ms); default 50. */
  pauseMs?: number;
  /** A merge failed (the database busy past its timeout, closed): the merging stops until the next write. */
  onError?: (error: Error) => void;
}

/** The index is merged when its largest segment holds less than this share of its leaf pages. */
export const MERGE_BELOW_SHARE = 0.75;
/** ...or when its tombstones take more than this (700-1,300 deleted chunks: 6-11 bytes each). */
export const TOMBSTONE_BYTES = 8_192;
/** FTS5's rowids of tombstone pages (`FTS5_TOMBSTONE_ROWID` in fts5_index.c: the segment id plus 2^16, shifted by 37). */
const FIRST_TOMBSTONE_ROWID = 2 ** 16 * 2 ** 37;
const MERGE_SQL = "INSERT INTO vector_fts(vector_fts, rank) VALUES('merge', ?)";
const CHANGES_SQL = 'SELECT total_changes() AS n';

/** The worker: steps with pauses until FTS5 has nothing left, or the owner says stop; then it closes its connection. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
// A negative page count merges segments of every level, down to one; FTS5 changed fewer than two rows when it had nothing left.
const step = (merge, changes, pages) => {
  const before = changes.get().n;
  merge.run(-pages);
  return changes.get().n - before >= 2;
};
let stopped = false;
parentPort.on('message', () => { stopped = true; });
const db = new Database(workerData.location, { fileMustExist: true, timeout: 5000 });
const merge = db.prepare(${JSON.stringify(MERGE_SQL)});
const changes = db.prepare(${JSON.stringify(CHANGES_SQL)});
const finish = (done) => { db.close(); parentPort.postMessage({ done }); parentPort.close(); };
const next = () => {
  if (stopped) return finish(false);
  let more;
  try { more = step(merge, changes, workerData.stepPages); } catch (error) { db.close(); throw error; }
  if (more) setTimeout(next, workerData.pauseMs); else finish(true);
};
next();`;

export class FtsMerges {
  readonly #db: Database;
  readonly #idleMs: number;
  readonly #stepPages: number;
  readonly #pauseMs: number;
  readonly #tombstoneBytes: number;
  readonly #onError: (error: Error) => void;
  readonly #merge;
  readonly #changes;
  readonly #segmentPages;
  readonly #tombstoneBytesRead;
  #timer: NodeJS.Timeout | undefined;
  #worker: Worker | undefined;
  #closed = false;
  /** Resolves when no merging runs (tests). */
  #idle: Promise<void> = Promise.resolve();

  constructor(db: Database, options: FtsMergesOptions = {}) {
    this.#db = db;
    this.#idleMs = options.idleMs ?? 5_000;
    this.#stepPages = options.stepPages ?? 64;
    this.#pauseMs = options.pauseMs ?? 50;
    this.#tombstoneBytes = options.tombstoneBytes ?? TOMBSTONE_BYTES;
    this.#onError = options.onError ?? (() => {});
    this.#merge = db.prepare<[number]>(MERGE_SQL);
    this.#changes = db.prepare<[], { n: number }>(CHANGES_SQL);
    this.#segmentPages = db.prepare<[], { pages: number }>('SELECT count(*) AS pages FROM vector_fts_idx GROUP BY segid');
    this.#tombstoneBytesRead = db.prepare<[number], { bytes: number | null }>(
      'SELECT sum(length(block)) AS bytes FROM vector_fts_data WHERE id >= ?',
    );
    this.noteWrites();
  }

  /** Chunk rows were written: merging (a run under way stops after its step) waits until the writes have stopped for the idle time. */
  noteWrites(): void {
    if (this.#closed) return;
    this.#worker?.postMessage('stop');
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#start(), this.#idleMs);
    this.#timer.unref();
  }

  /** One merge step now, on the owner's connection (as the worker's steps); answers whether there may be more to merge. */
  step(): boolean {
    const before = this.#changes.get()!.n;
    this.#merge.run(-this.#stepPages);
    return this.#changes.get()!.n - before >= 2;
  }

  /**
   * Whether merging is worth rewriting the index: its largest segment holds less than `MERGE_BELOW_SHARE` of its
   * leaf pages (one `_idx` row a page, about), or its tombstones pass `tombstoneBytes`.
   */
  needsMerge(): boolean {
    const segments = this.#segmentPages.all();
    const total = segments.reduce((sum, segment) => sum + segment.pages, 0);
    const largest = Math.max(0, ...segments.map((segment) => segment.pages));
    if (segments.length > 1 && largest < MERGE_BELOW_SHARE * total) return true;
    const { bytes } = this.#tombstoneBytesRead.get(FIRST_TOMBSTONE_ROWID)!;
    return (bytes ?? 0) > this.#tombstoneBytes;
  }

  /** Resolves when no merging runs. */
  settled(): Promise<void> {
    return this.#idle;
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#worker?.postMessage('stop');
  }

  #start(): void {
    if (this.#closed) return;
    // A run told to stop by a write ends after its step: start again once it has.
    if (this.#worker) {
      void this.#idle.then(() => this.#start());
      return;
    }
    try {
      if (!this.needsMerge()) return;
    } catch (error) {
      this.#onError(error as Error);
      return;
    }
    const location = this.#db.name;
    if (this.#db.memory || !location) {
      this.#inline();
      return;
    }
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { location, driver, stepPages: this.#stepPages, pauseMs: this.#pauseMs },
    });
    worker.unref();
    this.#worker = worker;
    this.#idle = new Promise<void>((resolve) => {
      worker.once('error', (error) => this.#onError(error));
      worker.once('exit', () => {
        if (this.#worker === worker) this.#worker = undefined;
        resolve();
      });
    });
  }

  /** Steps on the owner's connection, with the pauses between them (a database with no file to open twice). */
  #inline(): void {
    if (this.#closed) return;
    let more: boolean;
    try {
      more = this.step();
    } catch (error) {
      this.#onError(error as Error);
      return;
    }
    if (!more) return;
    this.#timer = setTimeout(() => this.#inline(), this.#pauseMs);
    this.#timer.unref();
  }
}
