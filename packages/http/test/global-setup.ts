import type { TestProject } from 'vitest/node';
import { builtWorkers } from './built-cli';

/**
 * Global set-up of the core, http and http-postgres projects (`vitest run` only): builds core's worker entry
 * points from the current sources once (`builtWorkers`, about 0.3 s, reused while the sources are unchanged)
 * and names the directory in FATHOM_TEST_WORKERS_DIR, which the test workers inherit. Core then starts its
 * worker threads from that build instead of their `.ts` sources through tsx (`siblingWorkerUrl`), and
 * `graph-files.test.ts` starts its second process from it. In watch mode the sources change under a running
 * vitest, so nothing is set and the workers load through tsx as in `npm start`.
 */
export default async function setup(project: TestProject): Promise<void> {
  if (project.vitest.config.watch) return;
  process.env.FATHOM_TEST_WORKERS_DIR = await builtWorkers();
}
