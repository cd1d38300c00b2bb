/** Starting, driving and killing the scale benchmark's node processes (`node.ts`), and reading their memory. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { processCpuMs } from '../peers/stats';
import { compiledNode } from './build-node';
import type { NodeCommand, NodeMessage } from './node';

const script = fileURLToPath(new URL('./node.ts', import.meta.url));
export const API_KEY = 'fth_scalebenchscalebenchscalebenchscalebench';

export interface Node {
  child: ChildProcess;
  url: string;
  /** ms from spawn until the server listened. */
  readyMs: number;
  spawnedAt: number;
  logs: string[];
  call<T>(command: NodeCommand): Promise<T>;
  onMessage(listener: (message: NodeMessage) => void): () => void;
  /** Graceful stop (graphs saved), as SIGTERM of `fathom serve` does. */
  exit(): Promise<void>;
  kill(): Promise<void>;
}

/**
 * Spawns a node over `env` (data dir, database) and waits until its HTTP server listens. The node runs
 * compiled (`build-node.ts`; bundled before the clock starts), or under tsx with `SCALE_NODE=source`.
 */
export async function startNode(env: Record<string, string>, options: { echo?: (line: string) => void } = {}): Promise<Node> {
  const entry = process.env.SCALE_NODE === 'source' ? ['--conditions=fathom-source', '--import', 'tsx', script] : [await compiledNode()];
  const spawnedAt = performance.now();
  // SCALE_NODE_ARGS: extra node options for the node under test (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const extra = process.env.SCALE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, ...entry], {
    env: { ...process.env, FATHOM_API_KEY: API_KEY, FATHOM_ALLOW_REMOTE_MODELS: 'false', ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const logs: string[] = [];
  const listeners = new Set<(message: NodeMessage) => void>();
  let waiting: { resolve(value: unknown): void; reject(error: Error): void } | undefined;
  child.on('message', (message: NodeMessage) => {
    if ('log' in message) {
      logs.push(message.log);
      options.echo?.(message.log);
    }
    for (const listener of listeners) listener(message);
    if ('result' in message) waiting?.resolve(message.result);
    if ('error' in message) waiting?.reject(new Error(message.error));
    if ('result' in message || 'error' in message) waiting = undefined;
  });
  return new Promise<Node>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`scale node exited with ${code} before it was ready`));
    child.once('exit', onExit);
    const ready = (message: NodeMessage) => {
      if (!('ready' in message)) return;
      listeners.delete(ready);
      child.off('exit', onExit);
      const exited = new Promise<void>((done) => child.once('exit', () => done()));
      resolve({
        child,
        url: message.ready,
        readyMs: performance.now() - spawnedAt,
        spawnedAt,
        logs,
        call<T>(command: NodeCommand) {
          if (waiting) throw new Error('one command at a time');
          if (process.env.SCALE_VERBOSE) console.log(`    [bench] -> ${command.op}`);
          return new Promise<T>((done, fail) => {
            waiting = { resolve: (value) => done(value as T), reject: fail };
            child.send(command);
          });
        },
        onMessage(listener) {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        async exit() {
          child.send({ op: 'exit' } satisfies NodeCommand);
          await exited;
        },
        async kill() {
          child.kill('SIGKILL');
          await exited;
        },
      });
    };
    listeners.add(ready);
  });
}

/** Resident and peak resident memory of a process (bytes), from /proc. */
export function memoryOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** Bytes of the files under a directory. */
export function diskBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    total += entry.isDirectory() ? diskBytes(path) : statSync(path).size;
  }
  return total;
}

/**
 * POSTs a search through the public API: ms from the node's spawn to the answer, and the CPU time the node
 * had used by then (all threads; what a loaded machine does not inflate).
 */
export async function firstAnsweredSearch(node: Node, storeId: string, query: string): Promise<{ wall: number; cpu: number }> {
  const response = await fetch(`${node.url}/v1/vector_stores/${storeId}/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, max_num_results: 8 }),
  });
  if (!response.ok) throw new Error(`search answered ${response.status}: ${await response.text()}`);
  await response.json();
  return { wall: performance.now() - node.spawnedAt, cpu: processCpuMs(node.child.pid!) };
}

export const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
};
export const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
export const ms = (value: number) => `${value.toFixed(2)} ms`;
export const seconds = (value: number) => `${(value / 1000).toFixed(1)} s`;
