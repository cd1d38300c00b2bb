import type { RunResult, SqlClient } from '../storage';

/** A SqlClient that counts what its reads bring back, for tests that a query reads only what it returns. */
export interface MeteredSqlClient extends SqlClient {
  /** Characters of text and bytes of blobs in every row read since the last `reset()`. */
  readonly bytesRead: number;
  /** The statements run since the last `reset()`, in order. */
  readonly statements: readonly string[];
  reset(): void;
}

function sizeOf(rows: readonly unknown[]): number {
  let size = 0;
  for (const row of rows) {
    for (const value of Object.values(row as Record<string, unknown>)) {
      if (typeof value === 'string') size += value.length;
      else if (Buffer.isBuffer(value)) size += value.byteLength;
      else if (value !== null && typeof value === 'object') size += JSON.stringify(value).length;
      else size += 8;
    }
  }
  return size;
}

/**
 * Wraps `client` (and the transactions it opens) so every row read is measured: a repository test
 * asserts that listing rows with large columns reads about what the page returns, on both backends.
 */
export function meterReads(client: SqlClient): MeteredSqlClient {
  const state = { bytesRead: 0, statements: [] as string[] };
  const wrap = (inner: SqlClient): SqlClient => ({
    dialect: inner.dialect,
    async all<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]> {
      state.statements.push(sql);
      const rows = await inner.all<Row>(sql, params);
      state.bytesRead += sizeOf(rows);
      return rows;
    },
    async get<Row>(sql: string, params?: readonly unknown[]): Promise<Row | undefined> {
      state.statements.push(sql);
      const row = await inner.get<Row>(sql, params);
      if (row !== undefined) state.bytesRead += sizeOf([row]);
      return row;
    },
    run(sql: string, params?: readonly unknown[]): Promise<RunResult> {
      state.statements.push(sql);
      return inner.run(sql, params);
    },
    transaction<T>(fn: (tx: SqlClient) => Promise<T>): Promise<T> {
      return inner.transaction((tx) => fn(wrap(tx)));
    },
  });
  const metered = wrap(client) as MeteredSqlClient;
  // Getters (not copied values): each read sees the counts at that moment.
  Object.defineProperties(metered, {
    bytesRead: { get: () => state.bytesRead },
    statements: { get: () => state.statements },
    reset: {
      value: () => {
        state.bytesRead = 0;
        state.statements = [];
      },
    },
  });
  return metered;
}
