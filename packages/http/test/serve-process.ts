import { postgresForDataDir, releasePostgresForDataDir } from '@fathom/core/test';
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** `fathom serve` in a process of its own, as users run it: what a client sees over a real network hop. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  apiKey: string;
  /** The official SDK pointed at this server. */
  client: OpenAI;
  stop(): Promise<void>;
}

/**
 * Starts `fathom serve` on a free port with a temp data dir (and its own PostgreSQL database when the
 * suite runs on PostgreSQL). In-process servers share the test's event loop and hide timing a separate
 * process shows, e.g. a connection closed while the client is still sending.
 */
export async function startServeProcess(env: Record<string, string> = {}): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'fathom-serve-'));
  const apiKey = 'fth_serve_process_key';
  const databaseUrl = process.env.FATHOM_TEST_BACKEND === 'postgres' ? await postgresForDataDir(dataDir) : undefined;
  const child: ChildProcess = spawn(process.execPath, ['--conditions=fathom-source', '--import', 'tsx', cli, 'serve'], {
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
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`fathom serve did not start:\n${output}`)), 60_000);
    child.stdout!.on('data', (data: Buffer) => {
      output += data.toString();
      const match = /serving (http:\/\/[\d.:]+)\/v1/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    child.stderr!.on('data', (data: Buffer) => (output += data.toString()));
    child.once('exit', (code) => reject(new Error(`fathom serve exited (${code}):\n${output}`)));
  });
  return {
    url,
    apiKey,
    client: new OpenAI({ apiKey, baseURL: `${url}/v1`, maxRetries: 0, timeout: 60_000 }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      releasePostgresForDataDir(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
