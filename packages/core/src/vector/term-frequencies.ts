import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Database } from '../db';

/** Terms per cached lookup before the lookup cache starts over. */
const MAX_CACHED_TERMS = 50_000;
/** A vocabulary larger than this is not copied into memory (lookups and their cache serve it). */
const MAX_TABLE_TERMS = 2_000_000;
export interface TermFrequenciesOptions {
  /** Least time between two vocabulary scans, ms; default 10000. */
  rescanIntervalMs?: number;
  /** A scan waits until no chunk was written for this long, ms (during ingestion, lookups serve); default 2000. */
  quietAfterWritesMs?: number;
}

/**
 * Reads the whole vocabulary in a worker thread with its own read-only connection (WAL lets it read
 * beside the writer), so the event loop never waits for it. Plain JS: it runs from source and from a build alike.
 */
const SCAN_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.location, { readonly: true, fileMustExist: true });
try {
  const rows = db.prepare('SELECT term, doc FROM vector_fts_vocab').raw().all();
  const docs = new Int32Array(rows.length);
  rows.forEach((row, i) => { docs[i] = row[1]; });
  parentPort.postMessage({ terms: rows.map((row) => row[0]), docs }, [docs.buffer]);
} finally {
  db.close();
}`;

/**
 * Document frequencies of indexed words, for keyword query planning. A natural-language query asks
 * for ~50 forms (each word and its inflections), most of them absent from the index, and FTS5
 * answers each lookup in 15-30 µs at 100k chunks: ~1 ms for a query with new words. So the whole
 * vocabulary (term -> documents) is copied into memory by a background scan (0.3 s of a worker
 * thread at 100k chunks), and planning reads it instead. The copy is exact for as long as no chunk
 * was written since it was taken (`noteWrites`, and the indexed chunk count as seen by `get`); after
 * writes, a form missing from it is looked up (new words must be found at once), and the copy is
 * taken again once writes have paused. Looked-up frequencies are cached as before: they only steer pruning and weights, so
 * the cache starts over when the corpus size moves by 10%.
 */
export class TermFrequencies {
  private readonly lookup;
  private readonly cache = new Map<string, number>();
  private cachedTotal = -1;
  private table: Map<string, number> | null = null;
  /** Chunk count and write epoch at the time the table was read. */
  private tableTotal = -1;
  private tableEpoch = -1;
  private epoch = 0;
  private lastWriteAt = -Infinity;
  private scanning: Promise<void> | null = null;
  private lastScanAt = -Infinity;
  private closed = false;

  private readonly rescanIntervalMs: number;
  private readonly quietAfterWritesMs: number;

  constructor(
    private readonly db: Database,
    options: TermFrequenciesOptions = {},
  ) {
    this.rescanIntervalMs = options.rescanIntervalMs ?? 10_000;
    this.quietAfterWritesMs = options.quietAfterWritesMs ?? 2_000;
    const vocab = db.prepare<[string], { doc: number }>('SELECT doc FROM vector_fts_vocab WHERE term = ?');
    this.lookup = (term: string) => vocab.get(term)?.doc ?? 0;
  }

  /** Chunks were inserted or deleted by this process: the in-memory vocabulary may lack new words. */
  noteWrites(): void {
    this.epoch++;
    this.lastWriteAt = Date.now();
  }

  /** Documents containing `term`; `total` is the number of indexed chunks now. */
  get(term: string, total: number): number {
    if (this.cachedTotal < 0 || Math.abs(total - this.cachedTotal) > 0.1 * Math.max(this.cachedTotal, 100)) {
      this.cache.clear();
      this.cachedTotal = total;
      if (this.table && total !== this.tableTotal) this.table = null;
    }
    const cached = this.cache.get(term);
    if (cached !== undefined) return cached;
    const exact = this.table !== null && this.tableEpoch === this.epoch && this.tableTotal === total;
    const listed = this.table?.get(term);
    if (listed !== undefined) return listed;
    if (exact) return 0;
    this.refresh(total);
    const frequency = this.lookup(term);
    if (this.cache.size > MAX_CACHED_TERMS) this.cache.clear();
    this.cache.set(term, frequency);
    return frequency;
  }

  /** Resolves when the background scan under way (if any) has ended; for tests. */
  async scanned(): Promise<boolean> {
    await this.scanning;
    return this.table !== null;
  }

  close(): void {
    this.closed = true;
  }

  /**
   * Starts a background scan unless one runs, one ran recently, chunks are being written (the copy would
   * be stale at once), or the database has no file to open a second time.
   */
  private refresh(total: number): void {
    const location = this.db.name;
    const now = Date.now();
    if (this.scanning || this.closed || this.db.memory || !location) return;
    if (now - this.lastScanAt < this.rescanIntervalMs || now - this.lastWriteAt < this.quietAfterWritesMs) return;
    this.lastScanAt = now;
    const epoch = this.epoch;
    const driver = createRequire(import.meta.url).resolve('better-sqlite3');
    const worker = new Worker(SCAN_SOURCE, { eval: true, workerData: { location, driver } });
    worker.unref();
    this.scanning = new Promise<void>((resolve) => {
      const done = () => {
        this.scanning = null;
        resolve();
      };
      worker.once('message', (message: { terms: string[]; docs: Int32Array }) => {
        if (!this.closed && message.terms.length <= MAX_TABLE_TERMS) {
          const table = new Map<string, number>();
          message.terms.forEach((term, i) => table.set(term, message.docs[i]!));
          this.table = table;
          this.tableEpoch = epoch;
          this.tableTotal = total;
        }
        done();
      });
      // A failed scan leaves planning on lookups, as before the copy existed.
      worker.once('error', done);
      worker.once('exit', done);
    });
  }
}
