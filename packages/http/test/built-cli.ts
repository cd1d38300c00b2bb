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

/** Core's worker entry points, as core's own build emits them (core starts them beside the calling chunk). */
const WORKERS = {
  'extract.worker': join(core, 'src/documents/extract/extract.worker.ts'),
  'hnsw-worker': join(core, 'src/vector/hnsw-worker.ts'),
  'ivf-train-worker': join(core, 'src/vector/ivf-train-worker.ts'),
  'mapping.worker': join(core, 'src/webhooks/mapping.worker.ts'),
};

const external = () => [...dependenciesOf(join(core, 'package.json')), ...dependenciesOf(join(http, 'package.json')), /^@electric-sql\//];

/** Bundles `entry` (core from its sources, the `fathom-source` condition; every npm dependency external) into `outDir`. */
async function bundle(entry: Record<string, string>, outDir: string): Promise<void> {
  await build({
    config: false,
    silent: true,
    entry,
    outDir,
    format: ['esm'],
    target: 'node20',
    dts: false,
    noExternal: [/^@fathom\//],
    external: external(),
    esbuildOptions(options) {
      options.conditions = ['fathom-source'];
    },
  });
}

/**
 * `packages/http/<name>`, built by `buildInto` unless its `marker` file is there: workers of one run share it
 * (the first builds while the others wait on a lock directory). Returns the directory.
 */
async function buildOnce(name: string, marker: string, buildInto: (outDir: string) => Promise<void>): Promise<string> {
  const dir = join(http, name);
  const lock = `${dir}.lock`;
  const deadline = Date.now() + 180_000;
  while (!existsSync(join(dir, marker))) {
    try {
      mkdirSync(lock);
    } catch {
      // Another worker is building it: wait for its marker (or for its lock to go, if it failed).
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
      const key = sourcesKey();
      for (const entry of readdirSync(http).filter((entry) => entry.startsWith(PREFIX) && !entry.includes(key))) {
        const path = join(http, entry);
        if (statSync(path).mtimeMs < Date.now() - 3_600_000) rmSync(path, { recursive: true, force: true });
      }
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  return dir;
}

let built: Promise<string> | undefined;

/** Path of `cli.js` built from the current sources (built on first use in this run, or reused). */
export function builtCli(): Promise<string> {
  built ??= buildOnce(`${PREFIX}${sourcesKey()}`, 'cli.js', (outDir) => bundle({ cli: join(http, 'src/cli.ts'), ...WORKERS }, outDir)).then(
    (dir) => join(dir, 'cli.js'),
  );
  return built;
}

let workers: Promise<string> | undefined;

/**
 * A directory with core's worker entry points built from the current sources (`extract.worker.js`,
 * `hnsw-worker.js`, `mapping.worker.js`), and the test fixture `graph-process.js`: a bundle of a few
 * hundred kB, about 0.3 s to build. The test runs start these instead of the `.ts` sources through tsx
 * (`FATHOM_TEST_WORKERS_DIR`, set by `test/global-setup.ts`): tsx's hooks cost a worker that parses a PDF or
 * a DOCX about 1.2 s more CPU (pdf-parse and mammoth load in 0.3 s of CPU plain, 1.5 s through tsx).
 */
export function builtWorkers(): Promise<string> {
  workers ??= buildOnce(`${PREFIX}workers-${sourcesKey()}`, 'graph-process.js', (outDir) =>
    bundle({ ...WORKERS, 'graph-process': join(core, 'src/vector/__fixtures__/graph-process.ts') }, outDir),
  );
  return workers;
}
