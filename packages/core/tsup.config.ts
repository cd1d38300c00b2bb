import { defineConfig } from 'tsup';

// Worker entry points are emitted at the root of dist/, next to the chunks that start them
// (`siblingWorkerUrl(import.meta.url, ...)` resolves them relative to the calling module).
export default defineConfig({
  entry: {
    index: 'src/index.ts',
    'test/index': 'src/test/index.ts',
    'extract.worker': 'src/documents/extract/extract.worker.ts',
    'hnsw-worker': 'src/vector/hnsw-worker.ts',
    'ivf-train-worker': 'src/vector/ivf-train-worker.ts',
    'mapping.worker': 'src/webhooks/mapping.worker.ts',
  },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts', 'test/index': 'src/test/index.ts' } },
  clean: true,
  target: 'node20',
  // PGlite backs the test helpers' PostgreSQL and is loaded on demand; it is a dev dependency, never bundled.
  external: [/^@electric-sql\//],
});
