import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPostgres, type TestPostgres, testBackends } from './postgres';

// The tests' PostgreSQL (PGlite behind `PgliteServer`) must behave like a server with one session per
// connection wherever Fathom's PostgreSQL suite relies on it. (Not with a real server, nor in a SQLite-only run.)
describe.skipIf(process.env.FATHOM_TEST_DATABASE_URL || !testBackends().includes('postgres'))('the test PostgreSQL server', () => {
  let postgres: TestPostgres;
  let pool: pg.Pool;

  beforeAll(async () => {
    postgres = await startTestPostgres();
    pool = new pg.Pool({ connectionString: postgres.url, max: 8 });
    // Its idle connections end in the disconnect() test, the last one.
    pool.on('error', () => undefined);
    await pool.query('CREATE TABLE items (id int PRIMARY KEY, label text NOT NULL, n int NOT NULL)');
  });

  afterAll(async () => {
    await pool.end();
    await postgres.close();
  });

  it('keeps each connection’s parameterised queries whole when many run at once', async () => {
    // Different statement shapes and parameter counts on 8 connections: interleaved Parse/Bind of two
    // connections would bind one's parameters to the other's unnamed statement.
    const writes = Array.from({ length: 200 }, (_, i) =>
      i % 2 === 0
        ? pool.query('INSERT INTO items (id, label, n) VALUES ($1, $2, $3)', [i, `item ${i}`, i * 10])
        : pool.query('INSERT INTO items (id, label, n) VALUES ($1, $2, 7)', [i, `odd ${i}`]),
    );
    await Promise.all(writes);
    const reads = await Promise.all(
      Array.from({ length: 100 }, (_, i) => pool.query<{ label: string }>('SELECT label FROM items WHERE id = $1', [i * 2])),
    );
    expect(reads.map((result) => result.rows[0]?.label)).toEqual(Array.from({ length: 100 }, (_, i) => `item ${i * 2}`));
    const { rows } = await pool.query<{ count: string }>('SELECT count(*) FROM items');
    expect(Number(rows[0]!.count)).toBe(200);
  });

  it('runs a transaction block alone: no other connection’s statement lands inside it', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('UPDATE items SET n = n + 1 WHERE id = 0');
      // Another connection's write, sent while the block is open, waits for it (one session).
      const other = pool.query('UPDATE items SET n = n + 100 WHERE id = 0');
      await new Promise((resolve) => setTimeout(resolve, 50));
      await client.query('ROLLBACK');
      await other;
    } finally {
      client.release();
    }
    const { rows } = await pool.query<{ n: number }>('SELECT n FROM items WHERE id = 0');
    // The rollback undid only the block's own +1; the other connection's +100 ran after it, not inside it.
    expect(rows[0]!.n).toBe(100);
  });

  it('rolls back the open block of a connection that goes away, and serves the others', async () => {
    const client = new pg.Client({ connectionString: postgres.url });
    client.on('error', () => undefined); // its own end, caused below
    await client.connect();
    await client.query('BEGIN');
    await client.query('UPDATE items SET n = -1 WHERE id = 2');
    const waiting = pool.query<{ n: number }>('SELECT n FROM items WHERE id = 2');
    // The connection dies without ROLLBACK or Terminate.
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const { rows } = await waiting;
    expect(rows[0]!.n).toBe(20);
  });

  it('ends the batch of a connection that fails mid-batch, so the next connection is not skipped', async () => {
    await expect(pool.query('INSERT INTO items (id, label, n) VALUES ($1, $2, $3)', [0, 'duplicate', 1])).rejects.toThrow(/duplicate key/);
    const { rows } = await pool.query<{ label: string }>('SELECT label FROM items WHERE id = $1', [4]);
    expect(rows[0]!.label).toBe('item 4');
  });

  it('disconnect() ends every client, rolls back a block one left open, and moves the server: a new client is served, the old address refused', async () => {
    const oldUrl = postgres.url;
    const client = new pg.Client({ connectionString: oldUrl });
    const ended = new Promise<void>((resolve) => client.on('error', () => resolve()).on('end', () => resolve()));
    await client.connect();
    await client.query('BEGIN');
    await client.query('UPDATE items SET n = -5 WHERE id = 6');
    await postgres.disconnect();
    await ended;
    expect(postgres.url).not.toBe(oldUrl);
    // A client left behind by an earlier test file cannot reach the next file's data.
    const stale = new pg.Client({ connectionString: oldUrl });
    await expect(stale.connect()).rejects.toThrow(/ECONNREFUSED/);
    // A new client is served at once (no open block owns the session) and sees the block rolled back.
    const fresh = new pg.Client({ connectionString: postgres.url });
    await fresh.connect();
    try {
      const { rows } = await fresh.query<{ n: number }>('SELECT n FROM items WHERE id = 6');
      expect(rows[0]!.n).toBe(60);
    } finally {
      await fresh.end();
    }
  });
});
