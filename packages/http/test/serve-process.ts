import { postgresForDataDir, releasePostgresForDataDir } from '@fathom/core/test';
import { FATHOM_SCHEMAS } from '@fathom/core';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { builtCli } from './built-cli';

/** `fathom serve` in a process of its own, as users run it: what a client sees over a real network hop. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  apiKey: string;
  /** The official SDK pointed at this server. */
  client: OpenAI;
  child: ChildProcess;
  /** Everything the process printed so far (stdout and stderr), for tests that read its logs. */
  output(): string;
  /** Ends the process with `signal` (default SIGKILL: no shutdown code runs) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Stops the process gracefully (SIGTERM) and, when the data dir was its own, removes it. */
  stop(): Promise<void>;
}

export interface ServeProcessOptions {
  /**
   * The data dir to serve. Given, it outlives the process (restart tests start a second process over it,
   * and on PostgreSQL find the first one's database); left out, a temp dir is made and removed by `stop`.
   */
  dataDir?: string;
  env?: Record<string, string>;
}

/**
 * Starts `fathom serve` (the sources, built once for the test run: `builtCli`) on an ephemeral port with
 * the `hash` embedder (and the PostgreSQL database of its data dir when the suite runs on PostgreSQL). In-process servers share the test's event
 * loop and hide timing a separate process shows, e.g. a connection closed while the client is still
 * sending, or a real SIGKILL.
 */
export async function startServeProcess(options: ServeProcessOptions = {}): Promise<ServeProcess> {
  const ownDataDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'fathom-serve-'));
  const apiKey = options.env?.FATHOM_API_KEY ?? 'fth_serve_process_key';
  const databaseUrl = process.env.FATHOM_TEST_BACKEND === 'postgres' ? await postgresForDataDir(dataDir, FATHOM_SCHEMAS) : undefined;
  const child: ChildProcess = spawn(process.execPath, [await builtCli(), 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FATHOM_DATA_DIR: dataDir,
      FATHOM_API_KEY: apiKey,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      ...(databaseUrl ? { FATHOM_DATABASE_URL: databaseUrl } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fathom serve did not start:\n${output}`)), 90_000);
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`fathom serve exited (${code}):\n${output}`));
    });
  });
  const kill = (signal: NodeJS.Signals = 'SIGKILL') => {
    if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  };
  return {
    url,
    apiKey,
    client: new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0, timeout: 60_000 }),
    child,
    output: () => output,
    kill,
    async stop() {
      await kill('SIGTERM');
      if (!ownDataDir) return;
      releasePostgresForDataDir(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
