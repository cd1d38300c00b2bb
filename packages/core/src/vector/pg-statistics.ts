import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';

export interface PgStatisticsOptions {
  /** Rows written before the first analyze, and added to every later threshold; default 1,000. */
  minRows?: number;
  /** Share of the rows the table held at its last analyze that must be written before the next; default 0.2. */
  growth?: number;
}

/**
 * Keeps the planner's statistics of `vector_chunks` in step with bulk ingestion. Without them (a table
 * never analysed: PGlite has no autovacuum, and a native server's runs only after a threshold and a
 * nap) PostgreSQL takes `store_id = ?` as matching 0.5% of the rows, reads a large store's every row
 * through the B-tree on `store_id` and sorts them by distance instead of walking the HNSW index, and
 * filters every row of the store by `tsquery` instead of using the GIN index (measured: 1.05 s per
 * vector search at 100k chunks on PGlite; decision 2026-11-26-postgres-analyze).
 *
 * After each file's rows are written, `written()` runs `ANALYZE vector_chunks` (sampled: at most 30,000
 * rows at the default statistics target) when the table has no statistics yet and this process wrote
 * `minRows`, or when this process wrote `minRows + growth × rows at the last analyze` since — the rule
 * of autovacuum's analyze threshold, geometric, so a load of N rows analyses about log(N)/log(1.2)
 * times. It runs on the ingestion path, never on a search; one at a time per process (a write while
 * one runs does not wait); `SKIP_LOCKED`, so it never waits for an analyze of another node or of
 * autovacuum. A failure is logged once and never fails the write.
 */
export class PgStatistics {
  private readonly minRows: number;
  private readonly growth: number;
  /** Rows the table held at its last analyze (`reltuples`), once read; undefined = not yet looked. */
  private baseline?: number;
  private written = 0;
  private running?: Promise<void>;
  private warned = false;

  constructor(
    private readonly db: SqlClient,
    private readonly log: Logger,
    options: PgStatisticsOptions = {},
  ) {
    this.minRows = options.minRows ?? 1000;
    this.growth = options.growth ?? 0.2;
  }

  /** Counts `rows` written to `vector_chunks`; analyses the table when that makes it due. Never throws. */
  async rowsWritten(rows: number): Promise<void> {
    this.written += rows;
    if (this.running || this.written < this.due()) return;
    this.running = this.analyzeIfDue().finally(() => {
      this.running = undefined;
    });
    await this.running;
  }

  /** Rows this process must write before the table is analysed again. */
  private due(): number {
    return this.minRows + this.growth * (this.baseline ?? 0);
  }

  private async analyzeIfDue(): Promise<void> {
    try {
      if (this.baseline === undefined) {
        // First look in this process: a table analysed before (by us, another node or autovacuum) keeps its rhythm.
        const state = await this.state();
        if (!state) return;
        if (state.analyzed) {
          this.baseline = state.rows;
          if (this.written < this.due()) return;
        }
      }
      const started = performance.now();
      await this.db.run('ANALYZE (SKIP_LOCKED) vector_chunks');
      const after = await this.state();
      this.baseline = after?.rows ?? 0;
      this.written = 0;
      this.log.info(
        `Analyzed vector_chunks for the planner (${Math.round(this.baseline).toLocaleString('en-US')} rows, ${Math.round(performance.now() - started)} ms).`,
      );
    } catch (error) {
      // The next due write tries again; the searches keep working, only their plans may be poorer.
      this.written = 0;
      if (!this.warned) {
        this.warned = true;
        this.log.warn(`ANALYZE vector_chunks failed (${(error as Error).message}); searches may plan poorly until the table is analysed.`);
      }
    }
  }

  /** The table's row count as the planner knows it, and whether it has column statistics. */
  private async state(): Promise<{ rows: number; analyzed: boolean } | undefined> {
    const row = await this.db.get<{ rows: number; analyzed: boolean }>(
      `SELECT c.reltuples AS rows, EXISTS (
         SELECT 1 FROM pg_stats s WHERE s.schemaname = n.nspname AND s.tablename = c.relname AND s.attname = 'store_id'
       ) AS analyzed
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE c.oid = to_regclass('vector_chunks')`,
    );
    return row ? { rows: Math.max(0, Number(row.rows)), analyzed: Boolean(row.analyzed) } : undefined;
  }
}
