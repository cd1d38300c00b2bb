// Upload a document, add it to a vector store, wait for ingestion, and search it.
// Run a server first (`npm start`), then: FATHOM_API_KEY=<key> node examples/quickstart.mjs
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';

const client = new OpenAI({
  apiKey: process.env.FATHOM_API_KEY,
  baseURL: process.env.FATHOM_BASE_URL ?? 'http://127.0.0.1:8080/v1',
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fathom-quickstart-'));
const handbook = path.join(dir, 'handbook.md');
fs.writeFileSync(handbook, '# Handbook\n\nExpense reports are due on the 5th of each month.\n\nThe VPN gateway is vpn-eu-7.example.net.\n');

const file = await client.files.create({ file: fs.createReadStream(handbook), purpose: 'assistants' });
const store = await client.vectorStores.create({ name: 'handbook' });
const storeFile = await client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
console.log(`ingestion: ${storeFile.status}`);

for (const query of ['when are expense reports due?', 'vpn-eu-7']) {
  const results = await client.vectorStores.search(store.id, { query });
  console.log(`\n${query}`);
  for (const hit of results.data) console.log(`  ${hit.score.toFixed(3)}  ${hit.filename}  ${hit.content[0]?.text.slice(0, 80)}`);
}
