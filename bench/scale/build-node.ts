/**
 * The node under test runs compiled, as `fathom serve` runs from `dist/`: `node.ts` and the core's worker
 * entry points are bundled with tsup (the packages' own build tool) from the current source, so a restart
 * measures the server's start, not tsx compiling TypeScript in the main thread and each worker (~5 s of
 * CPU on this machine). `SCALE_NODE=source` runs `node.ts` under tsx instead.
 */
import { fileURLToPath } from 'node:url';
import { build } from 'tsup';

const root = fileURLToPath(new URL('../../', import.meta.url));
// Under the repository's node_modules, so the bundle's external packages resolve as they do from the source.
const outDir = `${root}node_modules/.cache/fathom-scale-node`;
let built: Promise<string> | undefined;

/** Bundles the node once per bench run; answers the path of its entry file. */
export function compiledNode(): Promise<string> {
  built ??= build({
    entry: {
      node: `${root}bench/scale/node.ts`,
      // Beside the entry file, where `siblingWorkerUrl` looks for them in a build.
      'hnsw-worker': `${root}packages/core/src/vector/hnsw-worker.ts`,
      'ivf-train-worker': `${root}packages/core/src/vector/ivf-train-worker.ts`,
      'extract.worker': `${root}packages/core/src/documents/extract/extract.worker.ts`,
      'mapping.worker': `${root}packages/core/src/webhooks/mapping.worker.ts`,
    },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    // Dependencies stay packages (loaded from node_modules at run time, as from dist); the workspace's own source is bundled.
    skipNodeModulesBundle: true,
    noExternal: [/^@fathom\//],
    esbuildOptions(options) {
      options.conditions = ['fathom-source'];
    },
    dts: false,
    clean: true,
    silent: true,
    config: false,
  }).then(() => `${outDir}/node.js`);
  return built;
}
