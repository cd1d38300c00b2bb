/**
 * Moving an Assistants app to Responses + Conversations (OpenAI shut the Assistants API down on
 * 2026-08-26; Fathom keeps both working, so you can move at your own pace). The same question is
 * answered both ways over the same vector store:
 *
 *   Assistants                          Responses + Conversations
 *   assistant (model, instructions,     the same settings, sent on each responses.create
 *     tools, tool_resources)              (or kept in your code as a "prompt" object)
 *   thread                              conversation (conversations.create)
 *   thread message                      conversation item / `input`
 *   run (+ polling)                     response (one call; `background: true` to poll)
 *   run steps (file_search results)     output items (`file_search_call`,
 *                                         `include: ['file_search_call.results']`)
 *   message annotations (file_citation) output_text annotations (file_citation with `index`)
 *
 *   OPENAI_API_KEY=<fathom key> OPENAI_BASE_URL=http://127.0.0.1:8080/v1 MODEL=openai/gpt-4o-mini \
 *     npx tsx examples/assistants-to-responses.ts
 */
import OpenAI, { toFile } from 'openai';

const client = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL
const model = process.env.MODEL ?? 'openai/gpt-4o-mini';
const instructions = 'Answer from the harbour handbook and cite it.';
const question = 'How long do refunds for cancelled tours take?';

// The documents: shared by both versions.
const file = await client.files.create({
  file: await toFile(
    Buffer.from('# Harbour handbook\n\nRefunds for cancelled boat tours are paid within five working days.\n'),
    'handbook.md',
  ),
  purpose: 'assistants',
});
const store = await client.vectorStores.create({ name: 'handbook' });
await client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });

// Before: an assistant, a thread and a run.
const assistant = await client.beta.assistants.create({
  model,
  instructions,
  tools: [{ type: 'file_search' }],
  tool_resources: { file_search: { vector_store_ids: [store.id] } },
});
const run = await client.beta.threads.createAndRunPoll({
  assistant_id: assistant.id,
  thread: { messages: [{ role: 'user', content: question }] },
});
const [answer] = (await client.beta.threads.messages.list(run.thread_id)).data;
const block = answer?.content[0];
if (block?.type === 'text') {
  console.log(`assistants: ${block.text.value}`);
  console.log(
    `assistants citations: ${block.text.annotations.map((a) => (a.type === 'file_citation' ? a.file_citation.file_id : a.type)).join(', ')}`,
  );
}

// After: a conversation holds the turns; each response reads it and appends to it.
const conversation = await client.conversations.create({ metadata: { migrated_from: run.thread_id } });
const tools: OpenAI.Responses.Tool[] = [{ type: 'file_search', vector_store_ids: [store.id] }];
const response = await client.responses.create({ model, instructions, tools, conversation: conversation.id, input: question });
console.log(`responses: ${response.output_text}`);
for (const item of response.output) {
  if (item.type !== 'message') continue;
  for (const part of item.content) {
    if (part.type !== 'output_text') continue;
    console.log(
      `responses citations: ${part.annotations.map((a) => (a.type === 'file_citation' ? `${a.filename}@${a.index}` : a.type)).join(', ')}`,
    );
  }
}

// A follow-up turn: the conversation supplies the context (previous_response_id works too).
const followUp = await client.responses.create({ model, instructions, conversation: conversation.id, input: 'Is that in calendar days?' });
console.log(`follow-up: ${followUp.output_text}`);
const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
console.log(`conversation items: ${items.data.map((item) => item.type).join(', ')}`);
