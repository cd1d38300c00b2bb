// Fathom inside a Node app, no HTTP: upload a PDF, index it, search it.
// From the repository: `npm run build && node examples/embedded.mjs` (plain Node, the built package),
// or without a build: `npx tsx --conditions=fathom-source examples/embedded.mjs`.
import { Fathom, silentLogger } from '@fathom/core';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument, StandardFonts } from 'pdf-lib';

const dataDir = mkdtempSync(join(tmpdir(), 'fathom-embedded-'));
const fathom = await Fathom.open({
  env: { FATHOM_EMBEDDER: process.env.FATHOM_EMBEDDER ?? 'hash', FATHOM_DATA_DIR: dataDir },
  logger: silentLogger,
});
const accountId = fathom.bootstrap.accountId; // the default account, created on first open

// A one-page PDF made on the fly (PDF parsing runs in a worker thread).
const pdf = await PDFDocument.create();
const font = await pdf.embedFont(StandardFonts.Helvetica);
pdf.addPage().drawText('Invoice INV-7731 is payable within thirty days of receipt.', { x: 50, y: 700, size: 12, font });
const file = await fathom.files.create(accountId, { file: await pdf.save(), filename: 'invoice.pdf', purpose: 'assistants' });

// The same sub-resources as openai-node's client, with the account first: vectorStores, .files, .fileBatches, .search.
const store = await fathom.vectorStores.create(accountId, { name: 'invoices', file_ids: [file.id] });
await fathom.vectorStores.files.poll(accountId, store.id, file.id); // until it is ingested
console.log((await fathom.vectorStores.retrieve(accountId, store.id)).file_counts);

const page = await fathom.vectorStores.search(accountId, store.id, { query: 'when is INV-7731 due?' });
for (const hit of page.data) {
  console.log(hit.score.toFixed(3), hit.filename, hit.content[0].text);
}
await fathom.close();
