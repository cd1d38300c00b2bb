import { afterAll, describe, expect, it } from 'vitest';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { numberPlaceholders } from './placeholders';
import type { Schema } from './schema';
import { isUniqueViolation } from './sql-helpers';

const schema: Schema = {
  component: 'test',
  sqlite: ['CREATE TABLE items (id TEXT PRIMARY KEY, n INTEGER NOT NULL, big INTEGER, body BLOB, note TEXT)'],
  postgres: ['CREATE TABLE items (id TEXT PRIMARY KEY, n BIGINT NOT NULL, big BIGINT, body BYTEA, note TEXT)'],
};

afterAll(closeTestPostgres);

describe('numberPlaceholders', () => {
  it("numbers ? outside quotes and comments and leaves '?' in literals alone", () => {
    expect(numberPlaceholders(`SELECT '?', "a?b", x FROM t WHERE a = ? AND b = ? -- what?\nAND c = ?`)).toBe(
      `SELECT '?', "a?b", x FROM t WHERE a = $1 AND b = $2 -- what?\nAND c = $3`,
    );
    expect(numberPlaceholders(`SELECT 'it''s ?' WHERE a = ?`)).toBe(`SELECT 'it''s ?' WHERE a = $1`);
  });
});

describe.each(testBackends())('SqlClient on %s', (backend) => {
  it('round-trips numbers (BIGINT and sums as numbers), text, blobs, null and booleans as 0/1', async () => {
    const db = await openTestDatabase(backend, [schema]);
    try {
      await db.run('INSERT INTO items (id, n, big, body, note) VALUES (?, ?, ?, ?, ?)', ['a', 1, 2 ** 40, Buffer.from([1, 2, 3]), null]);
      await db.run('INSERT INTO items (id, n, big, body, note) VALUES (?, ?, ?, ?, ?)', ['b', true, undefined, null, "it's"]);
      const row = await db.get<{ n: number; big: number; body: Buffer; note: string | null }>('SELECT * FROM items WHERE id = ?', ['a']);
      expect(row).toMatchObject({ n: 1, big: 2 ** 40, note: null });
      expect(Buffer.from(row!.body)).toEqual(Buffer.from([1, 2, 3]));
      const b = await db.get<{ n: number; big: number | null; note: string }>('SELECT n, big, note FROM items WHERE id = ?', ['b']);
      expect(b).toEqual({ n: 1, big: null, note: "it's" });
      const sum = await db.get<{ total: number; count: number }>('SELECT SUM(big) AS total, COUNT(*) AS count FROM items');
      expect(sum).toEqual({ total: 2 ** 40, count: 2 });
      expect(await db.get('SELECT * FROM items WHERE id = ?', ['missing'])).toBeUndefined();
      expect((await db.run('UPDATE items SET n = n + 1', [])).changes).toBe(2);
    } finally {
      await db.close();
    }
  });

  it('commits a transaction, rolls it back on a throw, and joins nested transactions', async () => {
    const db = await openTestDatabase(backend, [schema]);
    try {
      await db.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['kept', 1]);
        await tx.transaction(async (inner) => inner.run('INSERT INTO items (id, n) VALUES (?, ?)', ['nested', 2]));
      });
      await expect(
        db.transaction(async (tx) => {
          await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['lost', 1]);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      const ids = (await db.all<{ id: string }>('SELECT id FROM items ORDER BY id')).map((row) => row.id);
      expect(ids).toEqual(['kept', 'nested']);
    } finally {
      await db.close();
    }
  });

  it('keeps a statement from outside an open transaction out of it (it runs after the commit or rollback)', async () => {
    const db = await openTestDatabase(backend, [schema]);
    try {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const failing = db.transaction(async (tx) => {
        await tx.run('INSERT INTO items (id, n) VALUES (?, ?)', ['in-tx', 1]);
        await gate;
        throw new Error('rolled back');
      });
      await new Promise((resolve) => setTimeout(resolve, 20));
      const outside = db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['outside', 1]);
      release();
      await expect(failing).rejects.toThrow('rolled back');
      await outside;
      const ids = (await db.all<{ id: string }>('SELECT id FROM items ORDER BY id')).map((row) => row.id);
      expect(ids).toEqual(['outside']);
    } finally {
      await db.close();
    }
  });

  it('stores and finds text with a NUL character without failing (PostgreSQL keeps U+FFFD in its place)', async () => {
    const db = await openTestDatabase(backend, [schema]);
    try {
      await db.run('INSERT INTO items (id, n, note) VALUES (?, ?, ?)', ['nul', 1, 'a\u0000b']);
      const row = await db.get<{ note: string }>('SELECT note FROM items WHERE id = ?', ['nul']);
      expect(['a\u0000b', 'a\uFFFDb']).toContain(row!.note);
      expect(await db.get('SELECT id FROM items WHERE id = ?', ['x\u0000'])).toBeUndefined();
    } finally {
      await db.close();
    }
  });

  it('reports unique violations the same way on both backends', async () => {
    const db = await openTestDatabase(backend, [schema]);
    try {
      await db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['x', 1]);
      const error = await db.run('INSERT INTO items (id, n) VALUES (?, ?)', ['x', 1]).catch((caught: unknown) => caught);
      expect(isUniqueViolation(error)).toBe(true);
    } finally {
      await db.close();
    }
  });
});
