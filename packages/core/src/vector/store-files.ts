import type { Database } from '../db';
import { type Attributes, matchesAttributeFilter, validateAttributeFilter } from './attribute-filter';
import { mergeRanges } from './id-ranges';
import type { AttributeFilter } from './types';

/** The files of a store a filter leaves: none, all of them, or some (their ids, chunk count and chunk id ranges). */
export type FileSelection =
  | { kind: 'none' }
  | { kind: 'all' }
  | {
      kind: 'some';
      files: ReadonlySet<string>;
      chunks: number;
      /** The chunk ids (HNSW labels, FTS5 rowids) of those files: sorted, disjoint `[first, last]` ranges, flattened. */
      ranges: Float64Array;
    };

interface FileEntry {
  attributes: Attributes;
  /** `[first, last]` pairs, flattened. */
  ranges: number[];
  chunks: number;
}

interface StoreTable {
  generation: number;
  dataVersion: number;
  files: Map<string, FileEntry>;
  selections: Map<string, FileSelection>;
}

/** Stores whose file table is kept; filters per store whose selection is kept. */
const MAX_STORES = 256;
const MAX_SELECTIONS = 32;

/**
 * What filtered searches need of a store's files, read once and kept while the store does not change:
 * each file's attributes (parsed) and the ranges of its chunk ids (`vector_file_ranges`), and the
 * selection each recent filter made. A table is read again when the store's generation moves (chunks
 * written) or another connection committed anything (`PRAGMA data_version`: attributes changed by
 * another process); this process's own attribute changes call `forget`.
 */
export class StoreFiles {
  private readonly tables = new Map<string, StoreTable>();
  private readonly boundsOf = new Map<string, { generation: number; bounds: [number, number] | undefined }>();
  private readonly sql;

  constructor(private readonly db: Database) {
    this.sql = {
      files: db.prepare<[string], { file_id: string; attributes: string | null }>(
        'SELECT file_id, attributes FROM vector_files WHERE store_id = ?',
      ),
      ranges: db.prepare<[string], { file_id: string; first_id: number; last_id: number }>(
        'SELECT file_id, first_id, last_id FROM vector_file_ranges WHERE store_id = ?',
      ),
      bounds: db.prepare<[string], { low: number | null; high: number | null }>(
        'SELECT MIN(first_id) AS low, MAX(last_id) AS high FROM vector_file_ranges WHERE store_id = ?',
      ),
    };
  }

  /** The files of the store that `filter` leaves (the store at `generation`). */
  select(storeId: string, generation: number, filter: AttributeFilter): FileSelection {
    validateAttributeFilter(filter);
    const table = this.table(storeId, generation);
    const key = JSON.stringify(filter);
    let selection = table.selections.get(key);
    if (selection) {
      table.selections.delete(key);
      table.selections.set(key, selection);
      return selection;
    }
    const files = new Set<string>();
    const pairs: Array<[number, number]> = [];
    let chunks = 0;
    for (const [fileId, file] of table.files) {
      if (!matchesAttributeFilter(filter, file.attributes)) continue;
      files.add(fileId);
      chunks += file.chunks;
      for (let i = 0; i < file.ranges.length; i += 2) pairs.push([file.ranges[i]!, file.ranges[i + 1]!]);
    }
    selection =
      files.size === 0
        ? { kind: 'none' }
        : files.size === table.files.size
          ? { kind: 'all' }
          : { kind: 'some', files, chunks, ranges: mergeRanges(pairs) };
    table.selections.set(key, selection);
    if (table.selections.size > MAX_SELECTIONS) table.selections.delete(table.selections.keys().next().value!);
    return selection;
  }

  /** The first and last chunk id of the store (the store at `generation`); undefined when it has no chunk. */
  bounds(storeId: string, generation: number): [number, number] | undefined {
    const cached = this.boundsOf.get(storeId);
    if (cached && cached.generation === generation) return cached.bounds;
    const row = this.sql.bounds.get(storeId);
    const bounds: [number, number] | undefined = row?.low != null && row.high != null ? [row.low, row.high] : undefined;
    this.boundsOf.delete(storeId);
    this.boundsOf.set(storeId, { generation, bounds });
    if (this.boundsOf.size > MAX_STORES * 4) this.boundsOf.delete(this.boundsOf.keys().next().value!);
    return bounds;
  }

  /** Drops what is known of the store (its attributes changed here, or it was removed). */
  forget(storeId: string): void {
    this.tables.delete(storeId);
    this.boundsOf.delete(storeId);
  }

  private table(storeId: string, generation: number): StoreTable {
    const dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const cached = this.tables.get(storeId);
    if (cached && cached.generation === generation && cached.dataVersion === dataVersion) {
      this.tables.delete(storeId);
      this.tables.set(storeId, cached);
      return cached;
    }
    const files = new Map<string, FileEntry>();
    for (const row of this.sql.files.all(storeId)) {
      files.set(row.file_id, { attributes: row.attributes ? JSON.parse(row.attributes) : null, ranges: [], chunks: 0 });
    }
    for (const row of this.sql.ranges.all(storeId)) {
      const file = files.get(row.file_id);
      if (!file) continue;
      file.ranges.push(row.first_id, row.last_id);
      file.chunks += row.last_id - row.first_id + 1;
    }
    const table: StoreTable = { generation, dataVersion, files, selections: new Map() };
    this.tables.delete(storeId);
    this.tables.set(storeId, table);
    if (this.tables.size > MAX_STORES) this.tables.delete(this.tables.keys().next().value!);
    return table;
  }
}
