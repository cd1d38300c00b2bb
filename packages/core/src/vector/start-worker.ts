import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread from a `.js` file as is, or from a `.ts` source file (tests, `npm start`)
 * by registering tsx inside the worker first: on Node 20, `--import tsx` in a worker's `execArgv`
 * does not install the loader, so the `.ts` worker would fail with "Unknown file extension".
 */
export function startWorker(url: URL): Worker {
  if (!url.pathname.endsWith('.ts')) return new Worker(url);
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const source = `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(source, { eval: true });
}
