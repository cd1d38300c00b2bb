/**
 * Worker threads run `.worker.ts` files straight from source (tests, `npm start`) through tsx,
 * and `.worker.js` files from a build as they are. Pass the result as `execArgv` to Worker/Piscina.
 */
export function workerExecArgv(filename: string | URL): string[] {
  const name = typeof filename === 'string' ? filename : filename.pathname;
  return name.endsWith('.ts') ? [...process.execArgv.filter((arg) => !arg.startsWith('--inspect') && !/^--expose[-_]gc$/.test(arg)) /* workers refuse --expose-gc (bench runner) */, '--import', 'tsx'] : [];
}

/** URL of a sibling worker file, preferring the built `.js` when this module itself runs from a build. */
export function siblingWorkerUrl(base: string, stem: string): URL {
  const ext = base.endsWith('.ts') ? '.ts' : '.js';
  return new URL(`./${stem}${ext}`, base);
}
