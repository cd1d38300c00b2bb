import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

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

/** URL of a sibling worker file, preferring the built `.js` when this module itself runs from a build. */
export function siblingWorkerUrl(base: string, stem: string): URL {
  const ext = base.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${stem}${ext}`, base);
}
