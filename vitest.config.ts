import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources of the workspace packages: the `fathom-source` export condition
// points `@fathom/core` and `@fathom/http` at src/ instead of dist/ (see docs/decisions).
const resolve = { conditions: ['fathom-source', ...defaultServerConditions] };

/**
 * http test files that do not run on PostgreSQL, each for a reason: they exercise SQLite itself
 * (its file on disk, a full disk) or a CLI that only works embedded over a data dir.
 */
const POSTGRES_EXCLUDED: string[] = [];

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
    ],
  },
});
