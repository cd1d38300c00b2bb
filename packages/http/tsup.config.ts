import { cpSync, existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm'],
  // Declarations against @fathom/core's published ones (dist/index.d.ts, built first by `npm run build`), not
  // its sources: without the `fathom-source` condition the declaration build compiles http's sources alone,
  // 47 s of CPU less than compiling core's sources a second time (core's own build just did).
  dts: { compilerOptions: { customConditions: [] } },
  clean: true,
  target: 'node20',
  // The published server ships the console's build next to itself (dist/console), where it looks first.
  onSuccess: async () => {
    if (existsSync('../console/dist/index.html')) cpSync('../console/dist', 'dist/console', { recursive: true });
  },
});
