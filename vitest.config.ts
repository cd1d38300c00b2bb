import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run the TypeScript sources of the workspace packages: the `fathom-source` export condition
// points `@fathom/core` and `@fathom/http` at src/ instead of dist/ (see docs/decisions).
const resolve = { conditions: ['fathom-source', ...defaultServerConditions] };

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
    ],
  },
});
