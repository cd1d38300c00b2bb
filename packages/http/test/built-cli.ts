import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

/*
 * The `fathom` command the process tests start (the CLI suite, `fathom serve` in the restart, crash and
 * cluster suites), built once from the current sources instead of loading them through tsx in every
 * process: tsx's module hooks cost each process about 2 s of CPU (3.4 s from source, 1.1 s from a build;
 * see docs/decisions/2026-11-26-shared-test-workers.md). It is a plain JS build of core and http together
 * (no declarations), in packages/http/.test-build-<hash of the sources>/, beside dist/, so `../package.json`
 * and the console's dist resolve as they do from dist/. Test workers of one run share it: the first builds while
 * the others wait on a lock directory; a later run with unchanged sources reuses it.
 */
const http = fileURLToPath(new URL('..', import.meta.url));
const core = join(http, '../core');
const PREFIX = '.test-build-';

/** A hash of every source file's path, size and mtime, and of both package manifests. */
function sourcesKey(): string {
  const hash = createHash('sha256');
  for (const dir of [join(core, 'src'), join(http, 'src')]) {
    for (const file of (readdirSync(dir, { recursive: true }) as string[]).sort()) {
      const stat = statSync(join(dir, file));
      if (stat.isFile()) hash.update(`${dir}/${file}:${stat.size}:${stat.mtimeMs}\n`);
    }
  }
  for (const manifest of [join(core, 'package.json'), join(http, 'package.json')]) hash.update(readFileSync(manifest));
  return hash.digest('hex').slice(0, 16);
}

function dependenciesOf(manifest: string): string[] {
  const { dependencies = {} } = JSON.parse(readFileSync(manifest, 'utf8')) as { dependencies?: Record<string, string> };
  return Object.keys(dependencies).filter((name) => !name.startsWith('@fathom/'));
}

async function buildInto(outDir: string): Promise<void> {
  await build({
    config: false,
    silent: true,
    entry: {
      cli: join(http, 'src/cli.ts'),
      // Core starts these beside the chunk that needs them (siblingWorkerUrl), as in core's own build.
      'extract.worker': join(core, 'src/documents/extract/extract.worker.ts'),
      'hnsw-worker': join(core, 'src/vector/hnsw-worker.ts'),
      'mapping.worker': join(core, 'src/webhooks/mapping.worker.ts'),
    },
    outDir,
    format: ['esm'],
    target: 'node20',
    dts: false,
    // Core from its sources (the `fathom-source` condition), bundled in; every npm dependency stays external.
    noExternal: [/^@fathom\//],
    external: [...dependenciesOf(join(core, 'package.json')), ...dependenciesOf(join(http, 'package.json')), /^@electric-sql\//],
    esbuildOptions(options) {
      options.conditions = ['fathom-source'];
    },
  });
}

let built: Promise<string> | undefined;

/** Path of `cli.js` built from the current sources (built on first use in this run, or reused). */
export function builtCli(): Promise<string> {
  built ??= (async () => {
    const dir = join(http, `${PREFIX}${sourcesKey()}`);
    const cli = join(dir, 'cli.js');
    const lock = `${dir}.lock`;
    const deadline = Date.now() + 180_000;
    while (!existsSync(cli)) {
      try {
        mkdirSync(lock);
      } catch {
        // Another worker is building it: wait for its cli.js (or for its lock to go, if it failed).
        if (Date.now() > deadline) throw new Error(`the test build in ${dir} did not finish (lock: ${lock})`);
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      try {
        const staging = `${dir}.${process.pid}`;
        rmSync(staging, { recursive: true, force: true });
        await buildInto(staging);
        renameSync(staging, dir);
        // Builds of older sources go once no run can still be using them (an hour old).
        for (const entry of readdirSync(http).filter((name) => name.startsWith(PREFIX))) {
          const path = join(http, entry);
          if (path !== dir && path !== lock && statSync(path).mtimeMs < Date.now() - 3_600_000)
            rmSync(path, { recursive: true, force: true });
        }
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
    return cli;
  })();
  return built;
}
