import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';
import { SlowFirstSequencer } from './packages/http/test/slow-first-sequencer.ts';

// Tests run the TypeScript sources of the workspace packages: the `fathom-source` export condition
// points `@fathom/core` and `@fathom/http` at src/ instead of dist/ (see docs/decisions).
// Without vite's `module` condition: OpenTelemetry's packages publish under it an ESM build with
// extensionless imports that Node cannot load (Node itself loads their CommonJS `default`, as here).
const resolve = { conditions: ['fathom-source', ...defaultServerConditions.filter((condition) => condition !== 'module')] };

/**
 * http test files that do not run on PostgreSQL, each for a reason: they exercise SQLite itself
 * (its file on disk, a full disk) or a CLI that only works embedded over a data dir.
 */
const POSTGRES_EXCLUDED: string[] = [
  // Builds and packs the packages; nothing in it depends on the backend.
  'test/packaging.test.ts',
  // Start their own PostgreSQL for their server processes, whatever the project.
  'test/cluster.test.ts',
  'test/mcp-cluster.test.ts',
  // Fills the disk under the SQLite data dir; PostgreSQL keeps its data elsewhere.
  'test/disk-full.test.ts',
  // Copies a SQLite data dir into its own PostgreSQL.
  'test/migrate-data.test.ts',
  // Hundreds of uploads under a held thread pool, for a bug of the multipart parser in the HTTP layer (purpose lost on
  // reused connections): the backend behind the upload is not what it tests, and on PostgreSQL it caught the bug
  // only thinly (1-2 of 360 uploads lost against 8-43 on SQLite) in three times the time (docs/decisions/2026-11-26-upload-test-load.md).
  'test/uploads-keep-alive.test.ts',
  // The CLI as a process: in remote mode a client of the public API (the backend behind it is the other
  // suites' business), in embedded mode a data dir of its own. Each command is a process loading the
  // sources, the slowest file of the suite: running it twice buys nothing.
  'test/cli.test.ts',
];

/**
 * http test files the inner loop (`npm run test:fast`, FATHOM_TEST_FAST=1) leaves to `npm test`: they start
 * other processes (a cluster of servers, a built and packed package, the CLI), fill a disk, or fuzz every
 * route. `test:fast` runs the core and http projects only (SQLite; no PostgreSQL, no browser).
 */
const FAST_EXCLUDED: string[] = [
  'test/packaging.test.ts',
  'test/cluster.test.ts',
  'test/mcp-cluster.test.ts',
  'test/fuzz-routes.test.ts',
  'test/disk-full.test.ts',
  'test/migrate-data.test.ts',
  // Two server processes over a PostgreSQL of their own, like cluster.test.ts.
  'test/spend-cluster.test.ts',
  // The CLI as a process per command (about 40): the slowest file of the inner loop.
  'test/cli.test.ts',
];
const fast = process.env.FATHOM_TEST_FAST === '1';

/**
 * The core and http files share their worker process (`isolate: false`): a worker loads core, fastify, the
 * SDKs and the test helpers once and runs file after file with them, instead of a fresh process importing
 * it all again for each of ~250 files (406 s of CI time). A file leaves nothing behind that the next one
 * sees: servers and databases closed in afterAll, process settings restored, tracing shut down (see
 * docs/decisions/2026-11-26-shared-test-workers.md). FATHOM_TEST_ISOLATE=1 gives every file a fresh process
 * again, to tell a leak between files from a bug.
 */
const isolate = process.env.FATHOM_TEST_ISOLATE === '1';

/**
 * Core's worker threads (text extraction, HNSW, mappings) and graph-files' second process start from a build of
 * the current sources made once per run, not from their `.ts` files through tsx (packages/http/test/global-setup.ts).
 */
const workerBuild = fileURLToPath(new URL('./packages/http/test/global-setup.ts', import.meta.url));

// One project per package (test.projects replaces the deprecated vitest.workspace.ts).
export default defineConfig({
  test: {
    // Two test files at a time (vitest's default on 2 cores is one): most files wait on servers, processes
    // and timers they start, so the second file uses the time the first one waits.
    maxWorkers: 2,
    // The longest files (packaging, CLI, clusters, the slowest PostgreSQL files) start first, even on a fresh
    // clone where vitest has no recorded durations (packages/http/test/slow-first-sequencer.ts).
    sequence: { sequencer: SlowFirstSequencer },
    projects: [
      {
        resolve,
        ssr: { resolve: { conditions: resolve.conditions, externalConditions: ['fathom-source'] } },
        test: {
          name: 'core',
          root: './packages/core',
          include: ['src/**/*.test.ts'],
          globalSetup: [workerBuild],
          pool: 'forks',
          isolate,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        resolve,
        ssr: { resolve: { conditions: resolve.conditions, externalConditions: ['fathom-source'] } },
        test: {
          name: 'http',
          root: './packages/http',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: [workerBuild],
          ...(fast ? { exclude: FAST_EXCLUDED } : {}),
          pool: 'forks',
          isolate,
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        // The same http suite on PostgreSQL (PGlite over the wire, or FATHOM_TEST_DATABASE_URL).
        resolve,
        ssr: { resolve: { conditions: resolve.conditions, externalConditions: ['fathom-source'] } },
        test: {
          name: 'http-postgres',
          root: './packages/http',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          globalSetup: [workerBuild],
          exclude: POSTGRES_EXCLUDED,
          setupFiles: ['./test/postgres-setup.ts'],
          env: { FATHOM_TEST_BACKEND: 'postgres' },
          pool: 'forks',
          isolate,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        // The console's own logic (no browser): the editor's workflow model.
        test: { name: 'console', root: './packages/console', include: ['src/**/*.test.ts'] },
      },
      {
        // The console in real Chromium (playwright-core + the binary of @sparticuz/chromium) against a real
        // server on 127.0.0.1. Files run one at a time: each drives its own browser.
        resolve,
        ssr: { resolve: { conditions: resolve.conditions, externalConditions: ['fathom-source'] } },
        test: {
          name: 'console-e2e',
          root: './packages/console',
          include: ['e2e/**/*.e2e.test.ts'],
          pool: 'forks',
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
});
