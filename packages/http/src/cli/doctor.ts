import { existsSync, statfsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FathomConfig, ProviderConfig } from '@fathom/core';
import { findRunningServer } from './server-lock';

/** Below this much free space in the data dir, `disk` fails: uploads and the database would soon fail. */
export const MIN_FREE_BYTES = 100 * 2 ** 20;
const PROVIDER_TIMEOUT_MS = 5000;

type Line = { ok: boolean | 'skip'; check: string; detail: string };

function print(line: Line): void {
  const mark = line.ok === 'skip' ? 'skip' : line.ok ? 'ok  ' : 'FAIL';
  console.log(`${mark}  ${line.check.padEnd(18)}  ${line.detail}`);
}

async function attempt(check: string, fn: () => Promise<string>): Promise<Line> {
  try {
    return { ok: true, check, detail: await fn() };
  } catch (error) {
    return { ok: false, check, detail: (error as Error).message };
  }
}

function nearestExisting(path: string): string {
  while (!existsSync(path) && dirname(path) !== path) path = dirname(path);
  return path;
}

async function database(config: FathomConfig): Promise<string> {
  const { openDatabase } = await import('@fathom/core');
  const location = join(config.dataDir, 'fathom.db');
  if (!config.databaseUrl && !existsSync(location)) return `no SQLite database yet at ${location} (the first start creates it)`;
  const db = await openDatabase({ url: config.databaseUrl, location, schemas: [] });
  try {
    await db.get('SELECT 1 AS ok');
    return config.databaseUrl ? `PostgreSQL at ${db.location} answers` : `SQLite at ${location} answers`;
  } finally {
    await db.close();
  }
}

async function disk(config: FathomConfig): Promise<string> {
  const where = nearestExisting(config.dataDir);
  const stats = statfsSync(where);
  const free = stats.bavail * stats.bsize;
  const text = `${(free / 2 ** 30).toFixed(1)} GB free in ${where}`;
  if (free < MIN_FREE_BYTES) throw new Error(`${text}; at least ${MIN_FREE_BYTES / 2 ** 20} MB are needed`);
  return text;
}

async function embedder(config: FathomConfig): Promise<string> {
  const { createEmbedder, silentLogger } = await import('@fathom/core');
  const loaded = await createEmbedder(config, silentLogger);
  try {
    const { embeddings } = await loaded.embed({ values: ['Fathom doctor'] });
    return `${loaded.id} loaded; a test embedding has ${embeddings[0]!.length} values`;
  } finally {
    await loaded.close?.();
  }
}

async function provider(settings: ProviderConfig): Promise<string> {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/models`;
  const headers: Record<string, string> =
    settings.type === 'anthropic'
      ? { 'x-api-key': settings.apiKey ?? '', 'anthropic-version': '2023-06-01' }
      : settings.apiKey
        ? { authorization: `Bearer ${settings.apiKey}` }
        : {};
  let response: Response;
  try {
    response = await fetch(url, { headers, signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS) });
  } catch (error) {
    const cause = (error as Error).cause as Error | undefined;
    throw new Error(`${url} unreachable: ${cause?.message ?? (error as Error).message}`);
  }
  await response.body?.cancel();
  if (!response.ok)
    throw new Error(`${url} answered ${response.status}${response.status === 401 || response.status === 403 ? ' (key rejected)' : ''}`);
  return `${url} answered ${response.status}`;
}

/**
 * `fathom doctor`: settings, database, disk, embedder, providers, each a pass/fail line; exit code 1 when
 * one fails. Ollama, configured by default, is only checked when OLLAMA_BASE_URL or FATHOM_PROVIDERS names it.
 */
export async function doctor(): Promise<void> {
  const { loadConfig } = await import('@fathom/core');
  let config: FathomConfig;
  try {
    config = loadConfig();
  } catch (error) {
    print({ ok: false, check: 'settings', detail: (error as Error).message });
    process.exitCode = 1;
    return;
  }
  const lines: Line[] = [{ ok: true, check: 'settings', detail: `parsed; data dir ${config.dataDir}, embedder ${config.embedder}` }];
  print(lines[0]!);
  const server = findRunningServer(config.dataDir);
  if (server) print({ ok: true, check: 'server', detail: `pid ${server.pid} serves this data dir at ${server.url}` });
  for (const [check, fn] of [
    ['database', database],
    ['disk', disk],
    ['embedder', embedder],
  ] as const) {
    const line = await attempt(check, () => fn(config));
    print(line);
    lines.push(line);
  }
  const explicit = (vendor: string) =>
    vendor !== 'ollama' || !!process.env.OLLAMA_BASE_URL || !!process.env.FATHOM_PROVIDERS?.includes('"ollama"');
  for (const [vendor, settings] of Object.entries(config.providers)) {
    const line = await attempt(`provider ${vendor}`, () => provider(settings));
    if (!line.ok && !explicit(vendor)) line.ok = 'skip';
    if (line.ok === 'skip') line.detail += ' (default Ollama; set OLLAMA_BASE_URL to require it)';
    print(line);
    lines.push(line);
  }
  if (lines.some((line) => line.ok === false)) process.exitCode = 1;
}
