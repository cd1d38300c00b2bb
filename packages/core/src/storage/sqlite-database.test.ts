import BetterSqlite3 from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { DEFAULT_SQLITE_CACHE_BYTES, SqliteDatabase } from './sqlite-database';

const opened: SqliteDatabase[] = [];
const dirs: string[] = [];

afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function open(options: ConstructorParameters<typeof SqliteDatabase>[0] = {}): SqliteDatabase {
  const db = new SqliteDatabase(options);
  opened.push(db);
  return db;
}

function fileLocation(): string {
  const dir = mkdtempSync(join(tmpdir(), 'fathom-sqlite-'));
  dirs.push(dir);
  return join(dir, 'fathom.db');
}

/** The connection's page cache in bytes (a negative `cache_size` is KiB; a positive one, pages). */
function cacheBytes(db: SqliteDatabase): number {
  const size = db.raw.pragma('cache_size', { simple: true }) as number;
  return size < 0 ? -size * 1024 : size * (db.raw.pragma('page_size', { simple: true }) as number);
}

it('gives a file database a 64 MiB page cache, or the size asked for, and leaves a memory one at the driver default', () => {
  expect(cacheBytes(open({ location: fileLocation() }))).toBe(DEFAULT_SQLITE_CACHE_BYTES);
  expect(DEFAULT_SQLITE_CACHE_BYTES).toBe(64 * 2 ** 20);
  expect(cacheBytes(open({ location: fileLocation(), cacheBytes: 8 * 2 ** 20 }))).toBe(8 * 2 ** 20);
  const driverDefault = new BetterSqlite3(':memory:');
  expect(open().raw.pragma('cache_size', { simple: true })).toBe(driverDefault.pragma('cache_size', { simple: true }));
  driverDefault.close();
});
