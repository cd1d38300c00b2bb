import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { loadConfig, TransformersEmbedder } from '@fathom/core';
import { printJson } from './output';

function sizeOf(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.size;
  return readdirSync(path).reduce((sum, name) => sum + sizeOf(join(path, name)), 0);
}

/** Model folders (`<owner>/<name>` or `<name>`) holding a `config.json`. */
function localModels(modelsDir: string): string[] {
  if (!existsSync(modelsDir)) return [];
  const found: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (existsSync(join(dir, 'config.json'))) found.push(relative(modelsDir, dir));
    else if (depth < 2) for (const name of readdirSync(dir)) if (statSync(join(dir, name)).isDirectory()) visit(join(dir, name), depth + 1);
  };
  visit(modelsDir, 0);
  return found.sort();
}

/** `fathom models list`: the models found in FATHOM_MODELS_DIR. */
export async function listModels(options: { json?: boolean } = {}): Promise<void> {
  const config = loadConfig();
  const models = localModels(config.modelsDir).map((id) => ({ id, bytes: sizeOf(join(config.modelsDir, id)) }));
  if (options.json) return printJson(models);
  if (models.length === 0) console.log(`No models in ${config.modelsDir}. Run 'fathom models pull'.`);
  for (const model of models) console.log(`${model.id}  (${(model.bytes / 2 ** 20).toFixed(1)} MB)`);
}

/** `fathom models pull`: pre-fetches the embedding model through transformers.js for air-gapped installs. */
export async function pullModel(modelArg?: string): Promise<void> {
  const config = loadConfig();
  const modelId = modelArg || config.embeddingModel;
  console.log(`Fetching ${modelId} into ${config.modelsDir} ...`);
  const embedder = await TransformersEmbedder.load({ modelId, modelsDir: config.modelsDir, allowRemoteModels: true }).catch(
    (error: Error) => {
      throw new Error(
        `Could not fetch ${modelId} from the model hub into ${config.modelsDir}: ${error.message}. ` +
          'Check the model id and internet access, or copy a models folder from another machine into FATHOM_MODELS_DIR.',
      );
    },
  );
  try {
    const { embeddings } = await embedder.embed({ values: ['Fathom model check'] });
    const where = join(config.modelsDir, modelId);
    console.log(`Ready: ${modelId} (${embedder.dimensions} dimensions, ${embedder.maxInputTokens}-token window) in ${where}`);
    console.log(`  ${(sizeOf(where) / 2 ** 20).toFixed(1)} MB; a test embedding has ${embeddings[0]!.length} values.`);
    console.log(`Use it with FATHOM_EMBEDDER=transformers (or auto) and FATHOM_MODELS_DIR=${config.modelsDir}.`);
  } finally {
    await embedder.close();
  }
}
