import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

let tsxLoader: string | undefined;

/** file: URL of tsx's loader, resolved from this package (not from the process's working directory). */
function tsxLoaderUrl(): string {
  tsxLoader ??= pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  return tsxLoader;
}

/**
 * Worker threads run `.worker.ts` files straight from source (tests, `npm start`) through tsx,
 * and `.worker.js` files from a build as they are. Pass the result as `execArgv` to Worker/Piscina.
 * Workers refuse `--expose-gc` (the bench runner passes it) and must not inherit `--inspect`.
 */
export function workerExecArgv(filename: string | URL): string[] {
  const name = typeof filename === 'string' ? filename : filename.pathname;
  if (!name.endsWith('.ts')) return [];
  const inherited = process.execArgv.filter((arg) => !arg.startsWith('--inspect') && !/^--expose[-_]gc$/.test(arg));
  return [...inherited, '--import', tsxLoaderUrl()];
}

/**
 * URL of a sibling worker file, preferring the built `.js` when this module itself runs from a build. From
 * source, the test runs name a build of the workers in FATHOM_TEST_WORKERS_DIR (packages/http/test/
 * global-setup.ts): a worker started from it skips tsx's hooks, which cost a worker that parses a PDF or a
 * DOCX about 1.2 s of CPU.
 */
export function siblingWorkerUrl(base: string, stem: string): URL {
  if (!base.endsWith('.ts')) return new URL(`./${stem}.js`, base);
  const built = process.env.FATHOM_TEST_WORKERS_DIR;
  return built ? pathToFileURL(join(built, `${stem}.js`)) : new URL(`./${stem}.ts`, base);
}

/**
 * Starts a plain worker thread from a `.js` file as is, or from a `.ts` source file by registering tsx
 * inside the worker first: on Node 20, `--import` in a raw Worker's `execArgv` does not install the
 * loader before the entry file loads, so a `.ts` entry fails with "Unknown file extension". (Piscina
 * loads its task file after start-up, so `workerExecArgv` is enough there.)
 */
export function startWorker(url: URL): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url);
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const source = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(source, { eval: true });
}
