import type { Database } from '../db';

/** Prepares each SQL text once per database (preparing costs more than running these small statements). */
export class StatementCache {
  private readonly statements = new Map<string, ReturnType<Database['prepare']>>();
  constructor(private readonly db: Database) {}

  get<P extends unknown[] = unknown[], R = unknown>(sql: string) {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement as unknown as import('better-sqlite3').Statement<P, R>;
  }
}
