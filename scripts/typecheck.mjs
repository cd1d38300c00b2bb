#!/usr/bin/env node
// `npm run typecheck`: every TypeScript file of the repository checked by `tsc` in three programs, two at a time
// (each `tsc` is one thread). The Node-side code is one program (tsconfig.typecheck.json), so core's sources are
// checked once rather than once per project importing them; the console (React, no Node types) and the code that
// also runs in a browser (tsconfig.typecheck-dom.json) have options of their own. Prints the output of each
// program that fails and exits 1. See docs/decisions/2026-11-26-typecheck-programs.md.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const projects = [['tsconfig.typecheck.json'], ['packages/console', '--noEmit'], ['tsconfig.typecheck-dom.json']];
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const parallel = Math.max(1, Number(process.env.TYPECHECK_JOBS ?? 2));

function check([project, ...flags]) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [tsc, '-p', project, ...flags], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (data) => (output += data));
    child.stderr.on('data', (data) => (output += data));
    child.on('close', (code) => resolve({ project, code, output }));
  });
}

const queue = [...projects];
const failed = [];
await Promise.all(
  Array.from({ length: parallel }, async () => {
    for (let next = queue.shift(); next; next = queue.shift()) {
      const result = await check(next);
      console.log(`${result.code === 0 ? 'ok  ' : 'FAIL'} tsc -p ${result.project}`);
      if (result.code !== 0) failed.push(result);
    }
  }),
);
for (const { project, output } of failed) console.error(`\n── tsc -p ${project}\n${output}`);
process.exit(failed.length > 0 ? 1 : 0);
