import type { Fathom } from '@fathom/core';
import type OpenAI from 'openai';
import { findRunningServer, type ServerLock } from './server-lock';

/** The options every command accepts (the program's global options). */
export interface GlobalOptions {
  baseUrl?: string;
  apiKey?: string;
  adminKey?: string;
  account?: string;
}

/** Where a command's work happens: a Fathom over HTTP (remote), or the data dir opened in this process. */
export type Target =
  | { mode: 'remote'; baseUrl: string; key: string; server?: ServerLock }
  | { mode: 'embedded'; dataDir: string; account?: string };

/** A mistake in how the command was called: printed with the usage, exit code 2. */
export class UsageError extends Error {}

/** `http://host:8080`, `http://host:8080/` and `http://host:8080/v1` all mean the same server. */
function serverOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`--base-url (FATHOM_BASE_URL) must be an http:// or https:// URL, got '${value}'.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--base-url (FATHOM_BASE_URL) must be an http:// or https:// URL, got '${value}'.`);
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')}`;
}

/**
 * Remote when `--base-url`/`FATHOM_BASE_URL` is set. Otherwise embedded over the data dir, unless a live
 * `fathom serve` holds that data dir: then the command goes through that server when a key is at hand
 * (the account key, or the admin key for admin commands), and stops with a message saying so otherwise.
 */
export async function resolveTarget(options: GlobalOptions, kind: 'account' | 'admin' = 'account'): Promise<Target> {
  const env = process.env;
  const key = kind === 'admin' ? (options.adminKey ?? env.FATHOM_ADMIN_KEY) : (options.apiKey ?? env.FATHOM_API_KEY);
  const keyHelp = kind === 'admin' ? '--admin-key or FATHOM_ADMIN_KEY' : '--api-key or FATHOM_API_KEY';
  const baseUrl = options.baseUrl ?? env.FATHOM_BASE_URL;
  if (baseUrl) {
    if (!key) throw new UsageError(`Remote mode (--base-url ${baseUrl}) needs a key: set ${keyHelp}.`);
    if (options.account) throw new UsageError('--account is for embedded mode; in remote mode the key chooses the account.');
    return { mode: 'remote', baseUrl: serverOrigin(baseUrl), key };
  }
  const { loadConfig } = await import('@fathom/core');
  const { dataDir } = loadConfig();
  const server = findRunningServer(dataDir);
  if (!server) return { mode: 'embedded', dataDir, account: options.account };
  if (!key)
    throw new Error(
      `A Fathom server (pid ${server.pid}) is serving the data dir ${dataDir} at ${server.url}. ` +
        `Set ${keyHelp} to go through it, or stop it to work on the data dir directly.`,
    );
  if (options.account)
    throw new UsageError(`--account cannot be used through the running server at ${server.url}; its key chooses the account.`);
  process.stderr.write(`Going through the Fathom server (pid ${server.pid}) that serves ${dataDir} at ${server.url}.\n`);
  return { mode: 'remote', baseUrl: server.url, key, server };
}

/** Commands that only work on the data dir itself (reindex): they stop when a server holds it. */
export async function embeddedOnly(what: string): Promise<string> {
  const { loadConfig } = await import('@fathom/core');
  const { dataDir } = loadConfig();
  const server = findRunningServer(dataDir);
  if (server)
    throw new Error(`A Fathom server (pid ${server.pid}) is serving the data dir ${dataDir} at ${server.url}; stop it before ${what}.`);
  return dataDir;
}

/** Core's messages go to stderr: stdout carries the command's data (`--json` must parse). */
const stderrLogger = {
  info: (message: string, ...rest: unknown[]) => console.error(message, ...rest),
  warn: (message: string, ...rest: unknown[]) => console.error(message, ...rest),
  error: (message: string, ...rest: unknown[]) => console.error(message, ...rest),
};

/** Opens the data dir in this process (no background work unless the command starts it), runs `fn`, closes. */
export async function withFathom<T>(fn: (fathom: Fathom) => Promise<T>): Promise<T> {
  const { Fathom } = await import('@fathom/core');
  const fathom = await Fathom.open({ start: false, logger: stderrLogger });
  try {
    return await fn(fathom);
  } finally {
    await fathom.close();
  }
}

/** The account an embedded command acts for: `--account`, else the `FATHOM_API_KEY` account, else the oldest. */
export async function embeddedAccount(fathom: Fathom, explicit?: string): Promise<string> {
  if (explicit) return (await fathom.accounts.retrieve(explicit)).id;
  if (fathom.bootstrap.accountId) return fathom.bootstrap.accountId;
  const account = await fathom.accounts.first();
  if (!account) throw new Error('No account exists yet; start the server once or set FATHOM_API_KEY.');
  return account.id;
}

/** The official SDK pointed at a remote target. */
export async function openaiClient(target: Extract<Target, { mode: 'remote' }>): Promise<OpenAI> {
  const { default: OpenAI } = await import('openai');
  return new OpenAI({ baseURL: `${target.baseUrl}/v1`, apiKey: target.key, maxRetries: 1 });
}

/** Plain fetch for Fathom's own routes (admin, usage) the SDK does not have; errors carry the API's message. */
export async function callApi<T>(target: Extract<Target, { mode: 'remote' }>, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(`${target.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${target.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    throw new Error(`Could not reach ${target.baseUrl}: ${(error as Error).cause ?? (error as Error).message}`);
  }
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const error = (parsed as { error?: { message?: string; param?: string | null } } | undefined)?.error;
    throw new Error(`${response.status} ${error?.message ?? response.statusText}${error?.param ? ` (param: ${error.param})` : ''}`);
  }
  return parsed as T;
}
