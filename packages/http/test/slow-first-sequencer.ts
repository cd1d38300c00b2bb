import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that start the longest, in the order they should start: each project's first file would
 * otherwise start late on a fresh clone (CI), where vitest has no recorded durations and orders a project's
 * files by size, and the two workers would end unevenly on them. Keys are `project:path from the project
 * root`; durations of the fresh-clone CI run at cbc772e (2026-11-26). A file not run (test:fast excludes the
 * first four) is skipped.
 */
export const SLOW_FIRST: readonly string[] = [
  'http:test/packaging.test.ts', // 71 s: builds and packs both packages
  'http:test/cli.test.ts', // 49 s: about 40 CLI processes
  'http:test/cluster.test.ts', // 25 s: two servers over their own PostgreSQL
  'http:test/mcp-cluster.test.ts', // 15 s
  'http-postgres:test/fuzz-routes.test.ts', // 22 s
  'http-postgres:test/models-chat.test.ts', // 20 s
  'http-postgres:test/documents-errors.test.ts', // 20 s
  'http-postgres:test/batches-restart.test.ts', // 19 s
  'http-postgres:test/spend-cluster.test.ts', // 18 s
  'http-postgres:test/batches.test.ts', // 17 s
];

/**
 * Vitest's order (projects in turn; in each, failed files first, then the longest by its results cache, or the
 * largest on a fresh clone), with the files of SLOW_FIRST moved to the front. Only the order changes: every file
 * runs, in the project and worker it would have run in.
 */
export class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const key = (file: TestSpecification) => `${file.project.name}:${file.moduleId.slice(file.project.config.root.length + 1)}`;
    const rank = (file: TestSpecification) => {
      const at = SLOW_FIRST.indexOf(key(file));
      return at === -1 ? SLOW_FIRST.length : at;
    };
    // Array.prototype.sort is stable: files outside the list keep vitest's order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
