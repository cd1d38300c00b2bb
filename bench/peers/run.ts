/**
 * `npm run bench:peers`: runs `bench/peers/*.peers.ts` (or those named on the command line), each in its
 * own process, after the peers were installed into bench/peers/node_modules (the script does that first).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { machineLoad } from './stats';

const here = dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.peers.ts'))
  .filter((name) => only.length === 0 || only.some((wanted) => name.includes(wanted)))
  .sort();

console.log(
  `Fathom vs peers — ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${machineLoad()}`,
);
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, ['--conditions=fathom-source', '--import', 'tsx', '--expose-gc', join(here, file)], {
    stdio: 'inherit',
    env: { RUST_LOG: 'error', LANCEDB_LOG: 'error', ...process.env },
  });
  if (result.status !== 0) failed++;
}
process.exitCode = failed ? 1 : 0;
