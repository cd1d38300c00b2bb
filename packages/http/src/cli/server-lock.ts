import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which `fathom serve` processes hold a data dir: each writes `<dataDir>/servers/<pid>.json` once it
 * listens and removes it when it stops, so an embedded CLI command can go through the server (or stop)
 * instead of working the same ingestion queue and graph files (docs/decisions/2026-11-25-cli-and-a-running-server.md).
 */
export interface ServerLock {
  pid: number;
  /** Where the CLI reaches it: `http://127.0.0.1:8080` (a wildcard host is replaced by loopback). */
  url: string;
  started_at: number;
}

const folder = (dataDir: string) => join(dataDir, 'servers');

/** Loopback for a wildcard listen address, so the URL is one a local client can connect to. */
export function localUrl(address: string): string {
  const url = new URL(address);
  if (url.hostname === '0.0.0.0') url.hostname = '127.0.0.1';
  if (url.hostname === '[::]') url.hostname = '[::1]';
  return url.origin;
}

/** Records this process as serving `dataDir` at `address`; returns the function that removes the record. */
export function writeServerLock(dataDir: string, address: string): () => void {
  mkdirSync(folder(dataDir), { recursive: true });
  const path = join(folder(dataDir), `${process.pid}.json`);
  const lock: ServerLock = { pid: process.pid, url: localUrl(address), started_at: Math.floor(Date.now() / 1000) };
  writeFileSync(path, `${JSON.stringify(lock)}\n`);
  return () => rmSync(path, { force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A live server holding `dataDir`, or undefined. Records left by a killed server are removed on the way. */
export function findRunningServer(dataDir: string): ServerLock | undefined {
  let names: string[];
  try {
    names = readdirSync(folder(dataDir)).filter((name) => name.endsWith('.json'));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const path = join(folder(dataDir), name);
    let lock: ServerLock;
    try {
      lock = JSON.parse(readFileSync(path, 'utf8')) as ServerLock;
    } catch {
      continue;
    }
    if (typeof lock.pid === 'number' && alive(lock.pid) && lock.pid !== process.pid) return lock;
    if (typeof lock.pid === 'number' && !alive(lock.pid)) rmSync(path, { force: true });
  }
  return undefined;
}

/**
 * On SQLite one `fathom serve` process owns a data dir (its spend holds and rate-limit windows are decided
 * in process: docs/decisions/2026-11-26-spend-holds-in-process.md): throws, naming the live server, when
 * another one holds `dataDir`. Several processes may share a PostgreSQL database (`databaseUrl` set).
 */
export function refuseSecondSqliteServer(dataDir: string, databaseUrl: string | undefined): void {
  if (databaseUrl) return;
  const running = findRunningServer(dataDir);
  if (running) {
    throw new Error(
      `Another fathom server (pid ${running.pid}, ${running.url}) already serves the SQLite data dir ${dataDir}: one server process owns a data dir on SQLite. Stop it, or use PostgreSQL (FATHOM_DATABASE_URL) for several processes.`,
    );
  }
}
