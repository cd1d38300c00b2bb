#!/usr/bin/env node
// The `fathom` command: runs the built CLI when `npm run build` has produced dist/, otherwise the
// TypeScript sources through tsx with the `fathom-source` export condition (no build step needed).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const built = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const coreBuilt = fileURLToPath(new URL('../../core/dist/index.js', import.meta.url));
if (existsSync(built) && existsSync(coreBuilt)) {
  await import(pathToFileURL(built).href);
} else {
  const source = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
  const result = spawnSync(
    process.execPath,
    ['--conditions=fathom-source', '--import', import.meta.resolve('tsx'), source, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(result.status ?? 1);
}
