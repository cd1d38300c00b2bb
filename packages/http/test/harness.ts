import { Fathom, FATHOM_SCHEMAS, silentLogger, type Embedder } from '@fathom/core';
import { postgresForDataDir, releasePostgresForDataDir } from '@fathom/core/test';
import type { FastifyInstance } from 'fastify';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { createServer } from '../src/server';
import type { CreatedAccountBody } from './wire-types';

export type * from './wire-types';

export interface TestFathom {
  fathom: Fathom;
  app: FastifyInstance;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>/v1`, the SDK's baseURL. */
  baseURL: string;
  apiKey: string;
  adminKey: string;
  dataDir: string;
  /** `FATHOM_DATABASE_URL` of this server when the suite runs on PostgreSQL. */
  databaseUrl?: string;
  /** The official SDK pointed at this server with the default account's key. */
  client: OpenAI;
  /** A second account (via the admin API) and an SDK client for it. */
  newAccount(balance?: number): Promise<{ id: string; apiKey: string; client: OpenAI }>;
  /** `fetch` with the default key (or `apiKey`) against a `/v1/...` path. */
  request(path: string, init?: RequestInit & { apiKey?: string; json?: unknown }): Promise<Response>;
  /**
   * Closes the server and Fathom. A data dir the harness made is removed unless `keepData` is true
   * (restart tests); a data dir the test passed in is removed only with `keepData: false`.
   */
  close(options?: { keepData?: boolean }): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** Reuse a data dir (restart tests). */
  dataDir?: string;
  embedder?: Embedder;
  start?: boolean;
  /** The clock of the per-key rate-limit windows, ms. */
  clock?: () => number;
  /** How long a call's write waits to share a commit on SQLite, ms. */
  spendShareMs?: number;
}

/**
 * The JSON body of `response` as the shape the test names: `json<ErrorBody>(response)`. The type
 * argument is a declaration, not a check (the assertions check the values); without one the body is
 * `unknown`, so every field a test reads has a declared type.
 */
export async function json<T>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

/** Starts Fathom with a temp data dir on an ephemeral port, with the `hash` embedder unless told otherwise. */
export async function startFathom(options: StartOptions = {}): Promise<TestFathom> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fathom-test-'));
  const apiKey = 'fth_test_default_key';
  const adminKey = 'fth_test_admin_key';
  // The http suite runs on both backends: `FATHOM_TEST_BACKEND=postgres` (the http-postgres project)
  // gives each data dir a PostgreSQL database of its own (a restart on the same data dir finds its data).
  const databaseUrl = process.env.FATHOM_TEST_BACKEND === 'postgres' ? await postgresForDataDir(dataDir, FATHOM_SCHEMAS) : undefined;
  const env = {
    FATHOM_EMBEDDER: 'hash',
    FATHOM_ALLOW_REMOTE_MODELS: 'false',
    ...(databaseUrl ? { FATHOM_DATABASE_URL: databaseUrl } : {}),
    ...options.env,
    FATHOM_DATA_DIR: dataDir,
    FATHOM_API_KEY: apiKey,
    FATHOM_ADMIN_KEY: adminKey,
  };
  const fathom = await Fathom.open({
    env,
    logger: silentLogger,
    embedder: options.embedder,
    start: options.start,
    clock: options.clock,
    spendShareMs: options.spendShareMs,
  });
  const app = await createServer(fathom, { checkAnswers: true });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const port = (app.server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const baseURL = `${url}/v1`;
  const makeClient = (key: string) => new OpenAI({ apiKey: key, baseURL, maxRetries: 0, timeout: 30_000 });
  const request: TestFathom['request'] = (path, init = {}) => {
    const { apiKey: key, json: payload, headers, ...rest } = init;
    return fetch(`${url}${path}`, {
      ...rest,
      headers: {
        authorization: `Bearer ${key ?? apiKey}`,
        ...(payload !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(headers as Record<string, string>),
      },
      body: payload !== undefined ? JSON.stringify(payload) : rest.body,
    });
  };
  return {
    fathom,
    app,
    url,
    baseURL,
    apiKey,
    adminKey,
    dataDir,
    databaseUrl,
    client: makeClient(apiKey),
    request,
    async newAccount(balance = 100) {
      const response = await request('/v1/admin/accounts', {
        method: 'POST',
        apiKey: adminKey,
        json: { name: `account-${Math.random().toString(36).slice(2, 8)}`, balance },
      });
      const body = await json<CreatedAccountBody>(response);
      return { id: body.id, apiKey: body.api_key, client: makeClient(body.api_key) };
    },
    async close(closeOptions = {}) {
      await app.close();
      await fathom.close();
      releasePostgresForDataDir(dataDir);
      // A data dir this harness made is removed unless kept (restart tests); one the test gave is removed only when asked.
      const remove = closeOptions.keepData === false || (closeOptions.keepData === undefined && !options.dataDir);
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
