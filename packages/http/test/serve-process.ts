import { postgresForDataDir } from '@fathom/core/test';
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));

/** A `fathom serve` child process: what restart tests kill with a real SIGKILL. */
export interface ServeProcess {
  /** `http://127.0.0.1:<port>` */
  url: string;
  child: ChildProcess;
  /** Ends the process with `signal` (default SIGKILL: no shutdown code runs) and waits for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/**
 * Starts `fathom serve` from source on an ephemeral port over `dataDir`, with the `hash` embedder; in the
 * http-postgres project on the PostgreSQL database of that data dir (so a second process over the same
 * data dir finds the first one's state, as after a restart).
 */
export async function startServeProcess(dataDir: string, env: Record<string, string>): Promise<ServeProcess> {
  const databaseUrl = process.env.FATHOM_TEST_BACKEND === 'postgres' ? await postgresForDataDir(dataDir) : undefined;
  const child = spawn(process.execPath, ['--conditions=fathom-source', '--import', 'tsx', cli, 'serve'], {
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      FATHOM_DATA_DIR: dataDir,
      FATHOM_EMBEDDER: 'hash',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
      ...(databaseUrl ? { FATHOM_DATABASE_URL: databaseUrl } : {}),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
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
  return {
    url,
    child,
    kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
      return new Promise((resolve) => {
        child.once('exit', () => resolve());
        child.kill(signal);
      });
    },
  };
}
