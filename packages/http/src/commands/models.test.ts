import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeTinyModel } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { run as models } from './models';

describe('fathom models', () => {
  const root = mkdtempSync(join(tmpdir(), 'fathom-models-cli-'));
  const saved = { ...process.env };
  beforeAll(() => {
    // Remote stays allowed as for a real `pull`, but the model is already local, so nothing is fetched.
    Object.assign(process.env, { FATHOM_DATA_DIR: join(root, 'data'), FATHOM_MODELS_DIR: join(root, 'models') });
    writeTinyModel(join(root, 'models'), { modelId: 'local/tiny' });
  });
  afterAll(() => {
    process.env = saved;
    rmSync(root, { recursive: true, force: true });
  });

  const capture = async (fn: () => Promise<void>) => {
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...parts) => void lines.push(parts.join(' ')));
    try {
      await fn();
    } finally {
      log.mockRestore();
    }
    return lines.join('\n');
  };

  it('pull loads the model through transformers.js and prints where it lives', async () => {
    const out = await capture(() => models(['pull', 'local/tiny']));
    expect(out).toContain(`Ready: local/tiny (64 dimensions, 126-token window) in ${join(root, 'models', 'local/tiny')}`);
    expect(out).toContain(`FATHOM_MODELS_DIR=${join(root, 'models')}`);
  });

  it('list shows the models in FATHOM_MODELS_DIR', async () => {
    expect(await capture(() => models(['list']))).toMatch(/^local\/tiny {2}\(\d+\.\d MB\)$/m);
  });
});
