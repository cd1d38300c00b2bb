import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, vi } from 'vitest';

/**
 * CLI commands read their settings from `process.env` as a user's shell gives them. This sets them for
 * one describe block (a temp root, `env(root)` merged in), runs `setup(root)`, and restores everything after.
 * Returns the root folder.
 */
export function useCliEnvironment(prefix: string, env: (root: string) => Record<string, string>, setup?: (root: string) => void): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  const saved = { ...process.env };
  beforeAll(() => {
    Object.assign(process.env, env(root));
    setup?.(root);
  });
  afterAll(() => {
    process.env = saved;
    rmSync(root, { recursive: true, force: true });
  });
  return root;
}

/** Runs a command and returns what it printed with console.log (progress bars on stderr are silenced). */
export async function captureOutput(fn: () => Promise<void>): Promise<string> {
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...parts) => void lines.push(parts.join(' ')));
  const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await fn();
  } finally {
    log.mockRestore();
    write.mockRestore();
  }
  return lines.join('\n');
}
