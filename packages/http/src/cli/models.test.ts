import { join } from 'node:path';
import { writeTinyModel } from '@fathom/core/test';
import { describe, expect, it } from 'vitest';
import { captureOutput, useCliEnvironment } from '../../test/cli-harness';
import { listModels, pullModel } from './models';

describe('fathom models', () => {
  const root = useCliEnvironment(
    'fathom-models-cli-',
    (root) => ({ FATHOM_DATA_DIR: join(root, 'data'), FATHOM_MODELS_DIR: join(root, 'models') }),
    (root) => {
      // Remote stays allowed as for a real `pull`, but the model is already local, so nothing is fetched.
      writeTinyModel(join(root, 'models'), { modelId: 'local/tiny' });
    },
  );
  const capture = captureOutput;

  it('pull loads the model through transformers.js and prints where it lives', async () => {
    const out = await capture(() => pullModel('local/tiny'));
    expect(out).toContain(`Ready: local/tiny (64 dimensions, 126-token window) in ${join(root, 'models', 'local/tiny')}`);
    expect(out).toContain(`FATHOM_MODELS_DIR=${join(root, 'models')}`);
  });

  it('list shows the models in FATHOM_MODELS_DIR', async () => {
    expect(await capture(() => listModels())).toMatch(/^local\/tiny {2}\(\d+\.\d MB\)$/m);
  });
});
