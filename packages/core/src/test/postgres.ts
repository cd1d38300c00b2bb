import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { PgliteServer } from './pglite-server';
import { PostgresDatabase, SqliteDatabase, type Schema, type SqlDatabase } from '../storage';

/** A PostgreSQL with pgvector for one test process, reachable over the wire at `url`. */
export interface TestPostgres {
  /** `postgres://…` to give `FATHOM_DATABASE_URL` (or `pg`). */
  readonly url: string;
  /** Drops every table (a fresh, empty database). Nothing may be connected and busy meanwhile. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts a PostgreSQL for tests. With `FATHOM_TEST_DATABASE_URL` (a real server with pgvector) it
 * creates a new database there; otherwise PGlite (PostgreSQL compiled to WebAssembly, with the real
 * pgvector) served over the wire protocol on a free port of 127.0.0.1 (`PgliteServer`).
 *
 * PGlite behind the socket server is one PostgreSQL session shared by every connection: transactions
 * serialize, row conditions behave, but an advisory lock does not exclude another connection, and a
 * `SET` affects every connection. Correctness must therefore rest on row conditions, never on locks.
 */
export async function startTestPostgres(): Promise<TestPostgres> {
  const external = process.env.FATHOM_TEST_DATABASE_URL;
  return external ? createExternalDatabase(external) : startPglite();
}

async function startPglite(): Promise<TestPostgres> {
  const [{ PGlite }, { vector }] = await Promise.all([import('@electric-sql/pglite'), import('@electric-sql/pglite-pgvector')]);
  const db = await PGlite.create({ extensions: { vector } });
  const server = new PgliteServer(db);
  const address = await server.start();
  return {
    url: `postgres://postgres:postgres@${address}/postgres`,
    async reset() {
      await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
    },
    async close() {
      await server.stop();
      await db.close();
    },
  };
}

async function createExternalDatabase(serverUrl: string): Promise<TestPostgres> {
  const name = `fathom_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const run = async (sql: string, target = url.toString()) => {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  return {
    url: url.toString(),
    reset: () => run('DROP SCHEMA public CASCADE; CREATE SCHEMA public;'),
    close: () => run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, serverUrl),
  };
}

export type TestBackend = 'sqlite' | 'postgres';

/** Backends the storage suites run against: both, unless `FATHOM_TEST_BACKENDS` names a subset (`sqlite`). */
export function testBackends(): TestBackend[] {
  const wanted = (process.env.FATHOM_TEST_BACKENDS ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  return (['sqlite', 'postgres'] as const).filter((backend) => wanted.includes(backend));
}

const idle: TestPostgres[] = [];
const busy = new Set<TestPostgres>();

/**
 * A PostgreSQL no other open test database is using: a fresh (reset) one from this process's pool,
 * started on first use. `release()` hands it back; `close()` ends them all (afterAll).
 */
export async function leaseTestPostgres(): Promise<{ url: string; release(): void }> {
  const server = idle.pop() ?? (await startTestPostgres());
  busy.add(server);
  await server.reset();
  let released = false;
  return {
    url: server.url,
    release() {
      if (released) return;
      released = true;
      busy.delete(server);
      idle.push(server);
    },
  };
}

const byDataDir = new Map<string, { server: TestPostgres; open: boolean }>();

/**
 * The PostgreSQL that stands for a data dir in the http tests (`FATHOM_TEST_BACKEND=postgres`): the
 * same database again for a data dir seen before (a restart keeps its data), else a fresh one — a
 * server no open Fathom uses, reset. Call `release(dataDir)` when that Fathom closes.
 */
export async function postgresForDataDir(dataDir: string): Promise<string> {
  const known = byDataDir.get(dataDir);
  if (known) {
    known.open = true;
    return known.server.url;
  }
  const inUse = new Set([...byDataDir.values()].filter((entry) => entry.open).map((entry) => entry.server));
  // Reuse the server of the data dir closed longest ago (Map keeps insertion order), else start one.
  let server: TestPostgres | undefined;
  for (const [dir, entry] of byDataDir) {
    if (!entry.open && !inUse.has(entry.server)) {
      byDataDir.delete(dir);
      server = entry.server;
      break;
    }
  }
  server ??= await startTestPostgres();
  await server.reset();
  byDataDir.set(dataDir, { server, open: true });
  return server.url;
}

/** The Fathom of this data dir closed; its database stays until another data dir needs a server. */
export function releasePostgresForDataDir(dataDir: string): void {
  const entry = byDataDir.get(dataDir);
  if (entry) entry.open = false;
}

/** Stops every test PostgreSQL this process started. */
export async function closeTestPostgres(): Promise<void> {
  const all = [...new Set([...idle, ...busy, ...[...byDataDir.values()].map((entry) => entry.server)])];
  idle.length = 0;
  busy.clear();
  byDataDir.clear();
  await Promise.allSettled(all.map((server) => server.close()));
}

/** A fresh, migrated database of `backend` for a repository suite; `close()` gives it back. */
export async function openTestDatabase(backend: TestBackend, schemas: readonly Schema[]): Promise<SqlDatabase> {
  if (backend === 'sqlite') return new SqliteDatabase({ schemas });
  const lease = await leaseTestPostgres();
  const database = await PostgresDatabase.open({ url: lease.url, schemas, poolSize: 5 });
  const close = database.close.bind(database);
  return Object.assign(database, {
    async close() {
      await close();
      lease.release();
    },
  });
}

/**
 * One database of `backend` that several clients open, as several processes would (restarts, two
 * nodes): `open()` connects a new client (a new SQLite connection to one file, or a new pool to one
 * PostgreSQL database); `close()` closes every client and frees the database.
 */
export async function sharedTestDatabase(
  backend: TestBackend,
  schemas: readonly Schema[],
): Promise<{ open(): Promise<SqlDatabase>; close(): Promise<void> }> {
  const clients: SqlDatabase[] = [];
  const closeClients = async () => {
    await Promise.allSettled(clients.splice(0).map((client) => client.close()));
  };
  if (backend === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-shared-db-'));
    return {
      async open() {
        const client = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas });
        clients.push(client);
        return client;
      },
      async close() {
        await closeClients();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const lease = await leaseTestPostgres();
  return {
    async open() {
      const client = await PostgresDatabase.open({ url: lease.url, schemas, poolSize: 5 });
      clients.push(client);
      return client;
    },
    async close() {
      await closeClients();
      lease.release();
    },
  };
}
