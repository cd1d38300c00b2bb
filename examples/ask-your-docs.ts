// Ask your documents: a folder of files in, a question answered with citations out.
//
// Run a server first (`npm start`), then:
//   FATHOM_API_KEY=<key> FATHOM_MODEL=openai/gpt-4o-mini npx tsx examples/ask-your-docs.ts ./my-docs "How do refunds work?"
//
// Env: FATHOM_BASE_URL (default http://127.0.0.1:8080/v1), FATHOM_API_KEY, FATHOM_MODEL (`<vendor>/<model>`).
// It follows the spec's order: create the assistant, upload each file, create a store, add the files,
// wait until they are `completed`, attach the store to the assistant, run, and print the cited answer.
import fs from 'node:fs';
import path from 'node:path';
import OpenAI from 'openai';

const [folder, ...words] = process.argv.slice(2);
const question = words.join(' ');
if (!folder || !question) {
  console.error('usage: npx tsx examples/ask-your-docs.ts <folder> <question>');
  process.exit(2);
}
const model = process.env.FATHOM_MODEL;
if (!model) {
  console.error('Set FATHOM_MODEL to a `<vendor>/<model>` id your Fathom serves (see GET /v1/models).');
  process.exit(2);
}

const client = new OpenAI({
  apiKey: process.env.FATHOM_API_KEY,
  baseURL: process.env.FATHOM_BASE_URL ?? 'http://127.0.0.1:8080/v1',
});

const SUPPORTED = new Set([
  '.c',
  '.cs',
  '.cpp',
  '.csv',
  '.doc',
  '.docx',
  '.html',
  '.java',
  '.json',
  '.md',
  '.pdf',
  '.php',
  '.pptx',
  '.py',
  '.rb',
  '.tex',
  '.txt',
  '.css',
  '.js',
  '.sh',
  '.ts',
]);
const paths = fs
  .readdirSync(folder, { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile() && SUPPORTED.has(path.extname(entry.name).toLowerCase()))
  .map((entry) => path.join(entry.parentPath, entry.name));
if (paths.length === 0) {
  console.error(`No supported documents in ${folder}.`);
  process.exit(1);
}

// 1. The assistant, with file_search.
const assistant = await client.beta.assistants.create({
  model,
  name: 'Ask your docs',
  instructions: 'Answer using only the documents. Cite every fact. If the documents do not say, answer that you do not know.',
  tools: [{ type: 'file_search' }],
});

// 2-5. Upload each file, create a store, add the files and wait until they are searchable.
const store = await client.vectorStores.create({ name: `ask-your-docs ${path.basename(path.resolve(folder))}` });
const fileNames = new Map<string, string>();
const fileIds: string[] = [];
for (const file of paths) {
  const uploaded = await client.files.create({ file: fs.createReadStream(file), purpose: 'assistants' });
  fileNames.set(uploaded.id, path.relative(folder, file));
  fileIds.push(uploaded.id);
}
const batch = await client.vectorStores.fileBatches.createAndPoll(store.id, { file_ids: fileIds }, { pollIntervalMs: 500 });
console.error(`indexed ${batch.file_counts.completed}/${batch.file_counts.total} files (${batch.file_counts.failed} failed)`);

// 6. Attach the store to the assistant.
await client.beta.assistants.update(assistant.id, { tool_resources: { file_search: { vector_store_ids: [store.id] } } });

// 7. Run, streaming the answer as it is written.
const stream = client.beta.threads.createAndRunStream({
  assistant_id: assistant.id,
  thread: { messages: [{ role: 'user', content: question }] },
});
stream.on('textDelta', (delta) => process.stdout.write(delta.value ?? ''));
const messages = await stream.finalMessages();
const run = await stream.finalRun();
process.stdout.write('\n');
if (run.status !== 'completed') {
  console.error(`run ${run.status}: ${run.last_error?.message ?? ''}`);
  process.exit(1);
}

// Citations: each marker in the text maps to a file.
const answer = messages.at(-1)?.content.find((part) => part.type === 'text');
const annotations = answer?.type === 'text' ? answer.text.annotations : [];
if (annotations.length) {
  console.log('\nSources:');
  for (const annotation of annotations) {
    if (annotation.type === 'file_citation')
      console.log(`  ${annotation.text} ${fileNames.get(annotation.file_citation.file_id) ?? annotation.file_citation.file_id}`);
  }
}

// The searches behind the answer, with their scores.
for (const step of await stream.finalRunSteps()) {
  if (step.step_details.type !== 'tool_calls') continue;
  for (const call of step.step_details.tool_calls) {
    if (call.type !== 'file_search') continue;
    console.log(`\nfile_search results:`);
    for (const result of call.file_search.results ?? []) console.log(`  ${result.score.toFixed(3)}  ${result.file_name}`);
  }
}

await client.beta.assistants.delete(assistant.id);
