// Create, publish and run the agent of examples/agent-with-webhook.json, streaming its events.
//
// Run a server first (`npm start`, with a model provider configured), then:
//   FATHOM_API_KEY=<key> FATHOM_MODEL=openai/gpt-4o-mini SHOP_API_URL=https://api.example-shop.com/v1 \
//     SHOP_API_KEY=<shop key> npx tsx examples/run-agent.ts "Where is my order SO-10482?"
//
// Env: FATHOM_AGENTS_URL (default http://127.0.0.1:8080; the AGENTS_PORT listener if the server has one),
// FATHOM_API_KEY, and optional overrides of the JSON: FATHOM_MODEL (`<vendor>/<model>`), SHOP_API_URL,
// SHOP_API_KEY, CUSTOMER_NAME. The card's key is sent to Fathom once, with the workflow; it is injected
// into the shop API calls and never shown to the model or in the stream.
import { readFileSync } from 'node:fs';

const baseUrl = (process.env.FATHOM_AGENTS_URL ?? 'http://127.0.0.1:8080').replace(/\/$/, '');
const apiKey = process.env.FATHOM_API_KEY;
const message = process.argv.slice(2).join(' ') || 'Hi! Where is my order SO-10482?';
if (!apiKey) {
  console.error('Set FATHOM_API_KEY to a key of your Fathom account.');
  process.exit(2);
}

const definition = JSON.parse(readFileSync(new URL('./agent-with-webhook.json', import.meta.url), 'utf8'));
for (const node of definition.workflow.nodes) {
  if (node.type === 'agent' && process.env.FATHOM_MODEL) node.data.model = process.env.FATHOM_MODEL;
  if (node.type === 'webhook' && process.env.SHOP_API_URL) node.data.config.baseUrl = process.env.SHOP_API_URL;
  if (node.type === 'webhook' && process.env.SHOP_API_KEY) node.data.config.auth.apiKey = process.env.SHOP_API_KEY;
}

async function call(path: string, body?: unknown): Promise<Response> {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) {
    const { error } = (await response.json()) as { error: { message: string; code: string } };
    throw new Error(`${path}: HTTP ${response.status} ${error.code}: ${error.message}`);
  }
  return response;
}

const { agent } = (await (await call('/v1/agents', definition)).json()) as { agent: { id: string; status: string } };
console.log(`created ${agent.id} (${agent.status})`);
const published = (await (await call(`/v1/agents/${agent.id}/publish`)).json()) as { agent: { version: number } };
console.log(`published version ${published.agent.version}\n`);

const response = await call(`/v1/agents/${agent.id}/run`, {
  message,
  variables: { customer_name: process.env.CUSTOMER_NAME ?? 'Alex' },
  stream: true,
});

// Server-sent events: `event: <name>` + `data: <json>`, separated by a blank line.
const decoder = new TextDecoder();
let buffer = '';
let exitCode = 0;
for await (const chunk of response.body!) {
  buffer += decoder.decode(chunk as Uint8Array, { stream: true });
  let end: number;
  while ((end = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, end);
    buffer = buffer.slice(end + 2);
    const name = /^event: (.*)$/m.exec(block)?.[1];
    const data = JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null');
    if (name === 'message.delta') process.stdout.write(data.content);
    else if (name === 'tool_use') console.log(`\n[tool_use] ${data.tool} ${JSON.stringify(data.input)}`);
    else if (name === 'tool_result') console.log(`[tool_result] ${data.tool}: ${String(data.output).slice(0, 300)}`);
    else if (name === 'run.started') console.log(`[run.started] ${data.run.id}`);
    else if (name === 'run.completed') console.log('\n[run.completed]');
    else if (name === 'run.failed') {
      console.log(`\n[run.failed] ${data.error}`);
      exitCode = 1;
    }
  }
}
process.exit(exitCode);
