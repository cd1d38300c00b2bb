import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { MigratedReset, type RawSql, schemaKey } from './migrated-reset';
import { PgliteServer } from './pglite-server';
import { PostgresDatabase, SqliteDatabase, type Schema, type SqlDatabase } from '../storage';

/** A PostgreSQL with pgvector for one test process, reachable over the wire at `url`. */
export interface TestPostgres {
  /** `postgres://…` to give `FATHOM_DATABASE_URL` (or `pg`); it changes when `disconnect()` moves the server. */
  readonly url: string;
  /**
   * Without `schemas`, drops every table (a fresh, empty database). With them, a fresh database with those schemas
   * migrated: after the first time, emptying the tables is enough while the database keeps the migrated shape
   * (see `MigratedReset`). Nothing may be connected and busy meanwhile.
   */
  reset(schemas?: readonly Schema[]): Promise<void>;
  /** The schemas the last `reset(schemas)` migrated (a server whose reset needs no migration), if any. */
  readonly migrated?: string;
  /**
   * Ends every client's connection (rolling back what one left open) and, for PGlite, moves the server to a new
   * port (`url` changes): a client left open by an earlier test file cannot reach the next one's data.
   */
  disconnect(): Promise<void>;
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
  const urlOf = (address: string) => `postgres://postgres:postgres@${address}/postgres`;
  let url = urlOf(await server.start());
  const sql: RawSql = {
    exec: async (text) => {
      await db.exec(text);
    },
    rows: async <Row>(text: string) => (await db.query<Row>(text)).rows,
  };
  return withReset(() => url, sql, {
    async disconnect() {
      url = urlOf(await server.relisten());
    },
    async close() {
      await server.stop();
      await db.close();
    },
  });
}

/** A test PostgreSQL at `url` whose `reset` empties or migrates it through `sql` (see `MigratedReset`). */
function withReset(url: () => string, sql: RawSql, rest: Pick<TestPostgres, 'close' | 'disconnect'>): TestPostgres {
  const migrated = new MigratedReset(sql, url);
  return {
    get url() {
      return url();
    },
    get migrated() {
      return migrated.key;
    },
    // Clients of the test before (one it left open, reconnecting) are cut off first: the reset runs alone, and the
    // next test's data is out of their reach.
    async reset(schemas) {
      await rest.disconnect();
      await (schemas ? migrated.reset(schemas) : migrated.drop());
    },
    ...rest,
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
  const run = async <Row>(sql: string, target = url.toString()) => {
    const client = new pg.Client({ connectionString: target });
    await client.connect();
    try {
      return (await client.query<Row & pg.QueryResultRow>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  const sql: RawSql = {
    exec: async (text) => {
      await run(text);
    },
    rows: (text) => run(text),
  };
  return withReset(() => url.toString(), sql, {
    disconnect: async () => {
      await run('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
    },
    close: async () => {
      await run(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, serverUrl);
    },
  });
}

export type TestBackend = 'sqlite' | 'postgres';

/** Backends the storage suites run against: both, unless `FATHOM_TEST_BACKENDS` names a subset (`sqlite`). */
export function testBackends(): TestBackend[] {
  const wanted = (process.env.FATHOM_TEST_BACKENDS ?? 'sqlite,postgres').split(',').map((name) => name.trim());
  return (['sqlite', 'postgres'] as const).filter((backend) => wanted.includes(backend));
}

const idle: TestPostgres[] = [];
const busy = new Set<TestPostgres>();

/** Takes the idle server last migrated with `schemas` (its reset only empties tables), else the latest idle one. */
function takeIdle(schemas: readonly Schema[] | undefined): TestPostgres | undefined {
  const key = schemas && schemaKey(schemas);
  const index = key ? idle.findLastIndex((server) => server.migrated === key) : -1;
  return index >= 0 ? idle.splice(index, 1)[0] : idle.pop();
}

/**
 * A PostgreSQL no other open test database is using: a fresh (reset) one from this process's pool,
 * started on first use; with `schemas`, already migrated with them. `release()` hands it back;
 * `close()` ends them all (afterAll).
 */
export async function leaseTestPostgres(schemas?: readonly Schema[]): Promise<{ url: string; release(): void }> {
  const server = takeIdle(schemas) ?? (await startTestPostgres());
  busy.add(server);
  await server.reset(schemas);
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
 * server no open Fathom uses, reset (with `schemas`, already migrated with them, as Fathom would leave
 * it after its first open). Call `release(dataDir)` when that Fathom closes.
 */
export async function postgresForDataDir(dataDir: string, schemas?: readonly Schema[]): Promise<string> {
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
  server ??= takeIdle(schemas) ?? (await startTestPostgres());
  await server.reset(schemas);
  byDataDir.set(dataDir, { server, open: true });
  return server.url;
}

/** The Fathom of this data dir closed; its database stays until another data dir needs a server. */
export function releasePostgresForDataDir(dataDir: string): void {
  const entry = byDataDir.get(dataDir);
  if (entry) entry.open = false;
}

/** Idle servers a worker keeps for its next test files (each PGlite holds ~100 MB and takes seconds to start). */
const KEPT_IDLE = 3;

/**
 * The end of a test file (afterAll): every test PostgreSQL it used is given back. A server nothing uses
 * any more stays, idle, for the next file of this worker process (vitest runs files one after another
 * in a worker): starting a PGlite costs seconds, and its next reset cuts off old clients and empties it like a new one. A server
 * still in use (a Fathom or a lease the file left open) is stopped, as are servers beyond `KEPT_IDLE`.
 */
export async function closeTestPostgres(): Promise<void> {
  const stopping = new Set<TestPostgres>(busy);
  busy.clear();
  for (const { server, open } of byDataDir.values()) {
    if (open) stopping.add(server);
    else if (!idle.includes(server)) idle.push(server);
  }
  byDataDir.clear();
  for (let index = idle.length - 1; index >= 0; index--) {
    if (stopping.has(idle[index]!)) idle.splice(index, 1);
  }
  for (const server of idle.splice(0, Math.max(0, idle.length - KEPT_IDLE))) stopping.add(server);
  await Promise.allSettled([...stopping].map((server) => server.close()));
}

/** A fresh, migrated database of `backend` for a repository suite; `close()` gives it back. */
export async function openTestDatabase(backend: TestBackend, schemas: readonly Schema[]): Promise<SqlDatabase> {
  if (backend === 'sqlite') return new SqliteDatabase({ schemas });
  const lease = await leaseTestPostgres(schemas);
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
  const lease = await leaseTestPostgres(schemas);
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
