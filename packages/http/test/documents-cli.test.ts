import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { captureOutput, useCliEnvironment } from './cli-harness';
import { run as ingest } from '../src/commands/ingest';
import { run as search } from '../src/commands/search';

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

  it('ingests a folder into a named store, summarises failures, then searches it', async () => {
    const out = await capture(() => ingest([join(root, 'docs'), '--store', 'notes']));
    expect(out).toMatch(/Created vector store vs_\w+ \(notes\); 3 files/);
    expect(out).toMatch(/Done in [\d.]+ s: 2 files, 2 chunks/);
    expect(out).toMatch(/1 file\(s\) failed:\n.*broken\.pdf: invalid_file: PDF is corrupt/);
    expect(process.exitCode).toBe(1);
    process.exitCode = 0;

    const found = await capture(() => search(['notes', 'how', 'do', 'bees', 'talk', 'about', 'flowers']));
    const [first] = found.split('\n');
    expect(first).toMatch(/^1\. [01]\.\d{3} {2}bees\.md {2}\(file-\w+\)$/);
    expect(found).toContain('waggle dance');

    const again = await capture(() => ingest([join(root, 'docs', 'tides.txt'), '--store', 'notes']));
    expect(again).toMatch(/Adding to vector store vs_\w+ \(notes\); 1 files/);
  });

  it('prints usage for missing arguments', async () => {
    expect(await capture(() => ingest([]))).toMatch(/Usage: fathom ingest/);
    expect(await capture(() => search(['only-store']))).toMatch(/Usage: fathom search/);
    process.exitCode = 0;
  });
});
