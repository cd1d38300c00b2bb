import type { ListPage, ListQuery } from '../internal/pagination';
import { paginate, placeholders, type Repository, type SqlClient } from '../storage';

export interface StoreRow {
  id: string;
  account_id: string;
  name: string | null;
  description: string | null;
  metadata: string | null;
  expires_after_days: number | null;
  embedder: string | null;
  last_active_at: number;
  created_at: number;
}

export interface FileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

/** A store's file counts and summed `usage_bytes`, computed from its files in one statement. */
export interface StoreUsage {
  counts: FileCounts;
  usageBytes: number;
}

const COLUMNS = 'id, account_id, name, description, metadata, expires_after_days, embedder, last_active_at, created_at';

/** Storage of vector store rows. Counts and usage are never stored: `usage` computes them on every read. */
export interface VectorStoresRepository extends Repository<VectorStoresRepository> {
  insert(row: StoreRow): Promise<void>;
  get(accountId: string, id: string): Promise<StoreRow | undefined>;
  /** Stores of the account whose id or name is `idOrName`, oldest first. */
  findByIdOrName(accountId: string, idOrName: string): Promise<StoreRow[]>;
  /** Ids of stores of any account whose id or name is `idOrName`, oldest first (operator CLI). */
  idsNamed(idOrName: string): Promise<string[]>;
  update(row: Pick<StoreRow, 'id' | 'name' | 'metadata' | 'expires_after_days' | 'last_active_at'>): Promise<void>;
  touch(id: string, lastActiveAt: number): Promise<void>;
  remove(id: string): Promise<boolean>;
  list(accountId: string, query: ListQuery): Promise<ListPage<StoreRow>>;
  /** File counts and usage of each store (one grouped statement: a consistent snapshot on both backends). */
  usage(storeIds: readonly string[]): Promise<Map<string, StoreUsage>>;
}

export const emptyCounts = (): FileCounts => ({ in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 });

/** The SQL of `vector_stores`, the same on SQLite and PostgreSQL. */
export class SqlVectorStoresRepository implements VectorStoresRepository {
  constructor(private readonly db: SqlClient) {}

  in(tx: SqlClient): VectorStoresRepository {
    return new SqlVectorStoresRepository(tx);
  }

  async insert(row: StoreRow): Promise<void> {
    await this.db.run(`INSERT INTO vector_stores (${COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, [
      row.id,
      row.account_id,
      row.name,
      row.description,
      row.metadata,
      row.expires_after_days,
      row.embedder,
      row.last_active_at,
      row.created_at,
    ]);
  }

  get(accountId: string, id: string): Promise<StoreRow | undefined> {
    return this.db.get<StoreRow>(`SELECT ${COLUMNS} FROM vector_stores WHERE id = ? AND account_id = ?`, [id, accountId]);
  }

  findByIdOrName(accountId: string, idOrName: string): Promise<StoreRow[]> {
    return this.db.all<StoreRow>(
      `SELECT ${COLUMNS} FROM vector_stores WHERE account_id = ? AND (id = ? OR name = ?) ORDER BY ${insertionOrder(this.db)}`,
      [accountId, idOrName, idOrName],
    );
  }

  async idsNamed(idOrName: string): Promise<string[]> {
    const rows = await this.db.all<{ id: string }>(
      `SELECT id FROM vector_stores WHERE id = ? OR name = ? ORDER BY ${insertionOrder(this.db)}`,
      [idOrName, idOrName],
    );
    return rows.map((row) => row.id);
  }

  async update(row: Pick<StoreRow, 'id' | 'name' | 'metadata' | 'expires_after_days' | 'last_active_at'>): Promise<void> {
    await this.db.run('UPDATE vector_stores SET name = ?, metadata = ?, expires_after_days = ?, last_active_at = ? WHERE id = ?', [
      row.name,
      row.metadata,
      row.expires_after_days,
      row.last_active_at,
      row.id,
    ]);
  }

  async touch(id: string, lastActiveAt: number): Promise<void> {
    await this.db.run('UPDATE vector_stores SET last_active_at = ? WHERE id = ?', [lastActiveAt, id]);
  }

  async remove(id: string): Promise<boolean> {
    return (await this.db.run('DELETE FROM vector_stores WHERE id = ?', [id])).changes > 0;
  }

  list(accountId: string, query: ListQuery): Promise<ListPage<StoreRow>> {
    return paginate<StoreRow, StoreRow>(this.db, {
      table: 'vector_stores',
      columns: 'id, account_id, name, description, metadata, expires_after_days, embedder, last_active_at, created_at',
      where: 'account_id = ?',
      params: [accountId],
      query,
      map: (row) => pick(row),
    });
  }

  async usage(storeIds: readonly string[]): Promise<Map<string, StoreUsage>> {
    const out = new Map<string, StoreUsage>(storeIds.map((id) => [id, { counts: emptyCounts(), usageBytes: 0 }]));
    if (storeIds.length === 0) return out;
    const rows = await this.db.all<{ store_id: string; status: keyof FileCounts; n: number; bytes: number | null }>(
      `SELECT store_id, status, COUNT(*) AS n, SUM(usage_bytes) AS bytes FROM vector_store_files
       WHERE store_id IN ${placeholders(storeIds.length)} GROUP BY store_id, status`,
      storeIds,
    );
    for (const row of rows) {
      const usage = out.get(row.store_id)!;
      usage.counts[row.status] = Number(row.n);
      usage.counts.total += Number(row.n);
      usage.usageBytes += Number(row.bytes ?? 0);
    }
    return out;
  }
}

/** Insertion order: SQLite's rowid, PostgreSQL's identity column `seq`. */
const insertionOrder = (db: SqlClient) => (db.dialect === 'sqlite' ? 'rowid' : 'seq');

/** The row's own columns (PostgreSQL's `seq` stays inside the repository). */
function pick(row: StoreRow): StoreRow {
  return {
    id: row.id,
    account_id: row.account_id,
    name: row.name,
    description: row.description,
    metadata: row.metadata,
    expires_after_days: row.expires_after_days,
    embedder: row.embedder,
    last_active_at: row.last_active_at,
    created_at: row.created_at,
  };
}
