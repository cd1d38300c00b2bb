import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/test/index.ts', 'src/**/*.worker.ts'],
  format: ['esm'],
  dts: true,
  clean: true,
  target: 'node20',
});
