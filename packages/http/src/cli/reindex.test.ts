import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Fathom, HashEmbedder } from '@fathom/core';
import { describe, expect, it } from 'vitest';
import { captureOutput, useCliEnvironment } from '../../test/cli-harness';
import { ingest } from './ingest';
import { reindex } from './reindex';

describe('fathom reindex', () => {
  const root = useCliEnvironment(
    'fathom-reindex-',
    (root) => ({
      FATHOM_DATA_DIR: join(root, 'data'),
      FATHOM_EMBEDDER: 'hash',
      FATHOM_API_KEY: 'fth_reindex_test',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
    }),
    (root) => {
      mkdirSync(join(root, 'docs'), { recursive: true });
      writeFileSync(join(root, 'docs', 'tides.txt'), 'Spring tides happen at new and full moon, when the sun and moon align.');
    },
  );
  const capture = captureOutput;

  it('re-embeds a store built by another embedder with the current one, by id', async () => {
    const other = new HashEmbedder({ dimensions: 64 });
    const seeded = await Fathom.open({ embedder: other, start: false });
    const texts = ['Honeybees dance to show where flowers are.', 'Spring tides follow the moon.'];
    const { embeddings } = await other.embed({ values: texts });
    await seeded.vectorIndex.addFileChunks({
      storeId: 'vs_seeded',
      fileId: 'file-1',
      filename: 'notes.txt',
      attributes: null,
      chunks: texts.map((text, index) => ({ index, text, tokens: 8, vector: embeddings[index]! })),
    });
    await seeded.close();

    const out = await capture(() => reindex('vs_seeded', {}));
    expect(out).toMatch(/Re-indexing vs_seeded \(2 chunks, built with hash:v1:64\) with hash:v1:512/);
    expect(out).toMatch(/2 chunks re-embedded and indexed/);

    const after = await Fathom.open({ start: false });
    try {
      expect(await after.vectorIndex.storeInfo('vs_seeded')).toEqual({ embedderId: 'hash:v1:512', dimensions: 512, chunks: 2 });
      const [hit] = await after.vectorIndex.search(['vs_seeded'], { query: 'where are the flowers' });
      expect(hit!.content[0]!.text).toContain('Honeybees');
    } finally {
      await after.close();
    }
    expect(await capture(() => reindex(undefined, { all: true }))).toMatch(/already indexed with hash:v1:512/);
  });

  it('finds a store by name and refuses unknown stores', async () => {
    await capture(() => ingest({ mode: 'embedded', dataDir: join(root, 'data') }, [join(root, 'docs')], { store: 'tides' }));
    const out = await capture(() => reindex('tides', {}));
    expect(out).toMatch(/Re-indexing vs_\w+ \(1 chunks, built with hash:v1:512\)/);
    await expect(capture(() => reindex('no-such-store', {}))).rejects.toThrow(/No vector store with id or name 'no-such-store'/);
  });
});
