import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, vi } from 'vitest';
import { builtCli } from './built-cli';

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

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `fathom <args>` in a process of its own, as `npx fathom` runs it after a build (bin/fathom.js
 * imports dist/cli.js): the current sources built once for the test run (`builtCli`). The environment is
 * the test's without any Fathom or provider setting, plus `env`: nothing leaks from the developer's shell.
 */
export async function runCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(FATHOM_|OPENAI_|ANTHROPIC_|OLLAMA_)/.test(name)));
  const child = spawn(process.execPath, [await builtCli(), ...args], {
    env: { ...base, FATHOM_EMBEDDER: 'hash', FATHOM_ALLOW_REMOTE_MODELS: 'false', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => (stdout += data.toString()));
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}
