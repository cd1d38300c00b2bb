/**
 * One script, two backends: run it against OpenAI, then against Fathom, changing only the key,
 * the base URL and the model identifier (the official `openai` SDK reads the first two from the env).
 *
 *   # OpenAI
 *   OPENAI_API_KEY=sk-... MODEL=gpt-4o-mini npx tsx examples/migrate-from-openai.ts
 *
 *   # Fathom (`npm start` with OPENAI_API_KEY or FATHOM_PROVIDERS set on the server)
 *   OPENAI_API_KEY=<fathom key> OPENAI_BASE_URL=http://127.0.0.1:8080/v1 MODEL=openai/gpt-4o-mini \
 *     npx tsx examples/migrate-from-openai.ts
 *
 * It makes a plain completion, a streamed one, a tool-call round trip and a Responses call.
 */
import OpenAI from 'openai';

const client = new OpenAI(); // OPENAI_API_KEY, OPENAI_BASE_URL
const model = process.env.MODEL ?? 'gpt-4o-mini';

// 1. Plain chat completion.
const completion = await client.chat.completions.create({
  model,
  messages: [
    { role: 'system', content: 'Answer in one short sentence.' },
    { role: 'user', content: 'What causes ocean tides?' },
  ],
  temperature: 0.2,
});
console.log(`completion: ${completion.choices[0]?.message.content}`);
console.log(`usage: ${completion.usage?.prompt_tokens} prompt + ${completion.usage?.completion_tokens} completion tokens`);

// 2. Streaming, with the usage chunk at the end.
const stream = await client.chat.completions.create({
  model,
  messages: [{ role: 'user', content: 'Name three sea creatures.' }],
  stream: true,
  stream_options: { include_usage: true },
});
let streamed = '';
for await (const chunk of stream) streamed += chunk.choices[0]?.delta.content ?? '';
console.log(`streamed: ${streamed}`);

// 3. Tool-call round trip: the model asks for get_tide, the app answers, the model replies.
const tools: OpenAI.Chat.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_tide',
      description: 'Next low tide at a port',
      parameters: { type: 'object', properties: { port: { type: 'string' } }, required: ['port'] },
    },
  },
];
const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [{ role: 'user', content: 'When is the next low tide in Brest?' }];
const first = await client.chat.completions.create({ model, messages, tools });
const call = first.choices[0]?.message.tool_calls?.[0];
if (call && call.type === 'function') {
  console.log(`tool call: ${call.function.name}(${call.function.arguments})`);
  messages.push(first.choices[0]!.message, {
    role: 'tool',
    tool_call_id: call.id,
    content: JSON.stringify({ port: 'Brest', low_tide: '06:12' }),
  });
  const answer = await client.chat.completions.create({ model, messages, tools });
  console.log(`after tool: ${answer.choices[0]?.message.content}`);
} else {
  console.log(`no tool call: ${first.choices[0]?.message.content}`);
}

// 4. The Responses API (stateless: no previous_response_id, no store).
const response = await client.responses.create({
  model,
  instructions: 'Be brief.',
  input: 'Say hello to a lighthouse keeper.',
  store: false,
});
console.log(`responses: ${response.output_text}`);
