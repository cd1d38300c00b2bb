import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureOutput, useCliEnvironment } from './cli-harness';
import type { Target } from '../src/cli/context';
import { ingest } from '../src/cli/ingest';
import { search } from '../src/cli/search';

describe('fathom ingest and fathom search (embedded, no server)', () => {
  const root = useCliEnvironment(
    'fathom-cli-',
    (root) => ({
      FATHOM_DATA_DIR: join(root, 'data'),
      FATHOM_EMBEDDER: 'hash',
      FATHOM_API_KEY: 'fth_cli_test',
      FATHOM_ALLOW_REMOTE_MODELS: 'false',
    }),
    (root) => {
      mkdirSync(join(root, 'docs', 'nested'), { recursive: true });
      writeFileSync(join(root, 'docs', 'tides.txt'), 'Spring tides happen at new and full moon, when the sun and moon align.');
      writeFileSync(
        join(root, 'docs', 'nested', 'bees.md'),
        '# Bees\n\nHoneybees communicate the location of flowers with a waggle dance.',
      );
      writeFileSync(join(root, 'docs', 'broken.pdf'), '%PDF-1.4 not a pdf');
      writeFileSync(join(root, 'docs', '.hidden.txt'), 'never ingested');
    },
  );
  const capture = captureOutput;
  const embedded: Target = { mode: 'embedded', dataDir: join(root, 'data') };

  it('ingests a folder into a named store, summarises failures, then searches it', async () => {
    const out = await capture(() => ingest(embedded, [join(root, 'docs')], { store: 'notes' }));
    expect(out).toMatch(/Created vector store vs_\w+ \(notes\); 3 files/);
    expect(out).toMatch(/Done in [\d.]+ s: 2 files, 2 chunks/);
    expect(out).toMatch(/1 file\(s\) failed:\n.*broken\.pdf: invalid_file: PDF is corrupt/);
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;

    const found = await capture(() => search(embedded, 'notes', 'how do bees talk about flowers', { limit: '5', json: false }));
    const [first] = found.split('\n');
    expect(first).toMatch(/^1\. [01]\.\d{3} {2}bees\.md {2}\(file-\w+\)$/);
    expect(found).toContain('waggle dance');

    const again = await capture(() => ingest(embedded, [join(root, 'docs', 'tides.txt')], { store: 'notes' }));
    expect(again).toMatch(/Adding to vector store vs_\w+ \(notes\); 1 file;/);
  });

  it('refuses a bad option before uploading anything, naming it', async () => {
    await expect(capture(() => search(embedded, 'notes', 'bees', { limit: '0', json: false }))).rejects.toMatchObject({
      param: 'max_num_results',
    });
    await expect(capture(() => ingest(embedded, [join(root, 'docs')], { store: 'other', maxTokens: '50' }))).rejects.toMatchObject({
      param: expect.stringContaining('chunking_strategy'),
    });
  });
});
