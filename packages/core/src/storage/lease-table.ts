import type { LeaseQueue, LeasedTask } from '../internal/leased-worker';
import type { SqlClient } from './sql-client';
import { placeholders } from './sql-helpers';

export interface LeaseTableOptions<Task extends LeasedTask> {
  /** The table holding the work; it has `lease_owner TEXT`, `lease_until INTEGER` (ms) and `attempts INTEGER` columns. */
  table: string;
  /** Its id column; default `id`. */
  idColumn?: string;
  /** Rows waiting for a first (or next) claim, e.g. `status = 'queued'`. */
  waiting: string;
  /** Rows claimed and being worked on, e.g. `status = 'running'`; with an expired lease they can be taken over. */
  working: string;
  /** Extra assignments when a row is claimed, e.g. `status = 'running'`. */
  onClaim?: string;
  /** Extra assignments when a row is given back at shutdown, e.g. `status = 'queued'`. */
  onRelease?: string;
  /** ORDER BY of claims (oldest first), e.g. `created_ms`. */
  order: string;
  toTask(row: Record<string, unknown>): Task;
}

/**
 * The one SQL lease mechanism every queue table uses: claims, renewals and give-backs are single
 * conditional UPDATEs (`… WHERE waiting OR (working AND lease_until < now) … RETURNING`), correct by
 * their row conditions alone on SQLite and PostgreSQL, so processes sharing a database need no locks.
 */
export class SqlLeaseQueue<Task extends LeasedTask> implements LeaseQueue<Task> {
  readonly #client: SqlClient;
  readonly #options: LeaseTableOptions<Task>;
  readonly #id: string;
  readonly #claimSql: string;

  constructor(client: SqlClient, options: LeaseTableOptions<Task>) {
    this.#client = client;
    this.#options = options;
    this.#id = options.idColumn ?? 'id';
    const { table, waiting, working, onClaim, order } = options;
    const claimable = `((${waiting}) OR ((${working}) AND lease_until < ?))`;
    this.#claimSql = `UPDATE ${table} SET lease_owner = ?, lease_until = ?, attempts = attempts + 1${onClaim ? `, ${onClaim}` : ''}
      WHERE ${this.#id} IN (SELECT ${this.#id} FROM ${table} WHERE ${claimable} ORDER BY ${order} LIMIT ?) AND ${claimable}
      RETURNING *`;
  }

  async claim(owner: string, leaseUntil: number, limit: number, now: number): Promise<Task[]> {
    const rows = await this.#client.all<Record<string, unknown>>(this.#claimSql, [owner, leaseUntil, now, limit, now]);
    return rows.map((row) => this.#options.toTask(row));
  }

  async renew(owner: string, ids: readonly string[], leaseUntil: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const { table, working } = this.#options;
    const rows = await this.#client.all<{ id: string }>(
      `UPDATE ${table} SET lease_until = ? WHERE lease_owner = ? AND ${this.#id} IN ${placeholders(ids.length)} AND (${working})
       RETURNING ${this.#id} AS id`,
      [leaseUntil, owner, ...ids],
    );
    return rows.map((row) => String(row.id));
  }

  async release(owner: string, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    const { table, working, onRelease } = this.#options;
    await this.#client.run(
      `UPDATE ${table} SET lease_owner = NULL, lease_until = NULL, attempts = attempts - 1${onRelease ? `, ${onRelease}` : ''}
       WHERE lease_owner = ? AND ${this.#id} IN ${placeholders(ids.length)} AND (${working})`,
      [owner, ...ids],
    );
  }

  async owners(): Promise<string[]> {
    const { table, working } = this.#options;
    const rows = await this.#client.all<{ owner: string }>(
      `SELECT DISTINCT lease_owner AS owner FROM ${table} WHERE (${working}) AND lease_owner IS NOT NULL`,
    );
    return rows.map((row) => row.owner);
  }

  async expire(owner: string): Promise<void> {
    const { table, working } = this.#options;
    await this.#client.run(`UPDATE ${table} SET lease_until = 0 WHERE lease_owner = ? AND (${working})`, [owner]);
  }
}
