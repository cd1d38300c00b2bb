import { cpSync, existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/cli.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node20',
  // The published server ships the console's build next to itself (dist/console), where it looks first.
  onSuccess: async () => {
    if (existsSync('../console/dist/index.html')) cpSync('../console/dist', 'dist/console', { recursive: true });
  },
});
