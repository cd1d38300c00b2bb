import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources of the workspace packages: the `fathom-source` export condition
// points `@fathom/core` and `@fathom/http` at src/ instead of dist/ (see docs/decisions).
const resolve = { conditions: ['fathom-source', ...defaultServerConditions] };

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
];

// One project per package (test.projects replaces the deprecated vitest.workspace.ts).
export default defineConfig({
  test: {
    projects: [
      {
        resolve,
        ssr: { resolve: { conditions: resolve.conditions, externalConditions: ['fathom-source'] } },
        test: {
          name: 'core',
          root: './packages/core',
          include: ['src/**/*.test.ts'],
          pool: 'forks',
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
          pool: 'forks',
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
          exclude: POSTGRES_EXCLUDED,
          setupFiles: ['./test/postgres-setup.ts'],
          env: { FATHOM_TEST_BACKEND: 'postgres' },
          pool: 'forks',
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
