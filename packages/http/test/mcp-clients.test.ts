import { createMCPClient } from '@ai-sdk/mcp';
import { createOpenAI } from '@ai-sdk/openai';
import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { Agent, MCPServerStreamableHttp, OpenAIProvider, Runner, setTracingDisabled } from '@openai/agents';
import { generateText, stepCountIs } from 'ai';
import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

/**
 * Fathom's `/mcp` through the MCP clients people use, each as it ships: the OpenAI Agents SDK
 * (`MCPServerStreamableHttp`), the Vercel AI SDK (`@ai-sdk/mcp`) and the MCP Inspector CLI (a child
 * process), against a real server on 127.0.0.1 with a store ingested.
 */
let upstream: FakeUpstream;
let server: TestFathom;
let storeId: string;
let fileId: string;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
  const file = await server.client.files.create({
    file: await toFile(Buffer.from('# Fares\n\nA day pass for the harbour ferry costs 12 euros.'), 'fares.md'),
    purpose: 'assistants',
  });
  const store = await server.client.vectorStores.create({ name: 'fares' });
  await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });
  storeId = store.id;
  fileId = file.id;
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

/** What the model received as the result of its last tool call. */
const lastToolResult = () =>
  JSON.stringify(
    upstream.requests
      .at(-1)
      .messages.filter((message: { role: string }) => message.role === 'tool')
      .at(-1),
  );

describe('the OpenAI Agents SDK: MCPServerStreamableHttp', () => {
  it("lists Fathom's tools and runs an agent whose model calls file_search over MCP", async () => {
    setTracingDisabled(true);
    // A runner of this file's own: the SDK's default provider keeps the first client it was given for the
    // whole process, and test files share their worker process.
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ openAIClient: new OpenAI({ apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 }) }),
    });
    const mcp = new MCPServerStreamableHttp({
      url: `${server.url}/mcp`,
      name: 'fathom',
      requestInit: { headers: { Authorization: `Bearer ${server.apiKey}` } },
    });
    await mcp.connect();
    try {
      const names = (await mcp.listTools()).map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['file_search', 'list_vector_stores']));
      const agent = new Agent({
        name: 'Ferry desk',
        instructions: 'Answer from the documents.',
        model: 'fake/gpt-test',
        mcpServers: [mcp],
      });
      upstream.push(
        { toolCalls: [{ name: 'file_search', arguments: { query: 'ferry day pass price', vector_store_ids: [storeId] } }] },
        { content: 'A day pass costs 12 euros.' },
      );
      const result = await runner.run(agent, 'How much is a ferry day pass?');
      expect(result.finalOutput).toBe('A day pass costs 12 euros.');
      expect(lastToolResult()).toContain('fares.md');
      expect(lastToolResult()).toContain('costs 12 euros');
    } finally {
      await mcp.close();
    }
  });
});

describe('the Vercel AI SDK: @ai-sdk/mcp', () => {
  it("turns Fathom's tools into AI SDK tools a model calls, and reads its resources", async () => {
    const client = await createMCPClient({
      transport: { type: 'http', url: `${server.url}/mcp`, headers: { Authorization: `Bearer ${server.apiKey}` } },
    });
    try {
      const tools = await client.tools();
      expect(Object.keys(tools)).toEqual(expect.arrayContaining(['file_search', 'list_vector_stores']));
      const openai = createOpenAI({ apiKey: server.apiKey, baseURL: server.baseURL });
      upstream.push(
        { toolCalls: [{ name: 'file_search', arguments: { query: 'day pass', vector_store_ids: [storeId], max_num_results: 3 } }] },
        { content: '12 euros.' },
      );
      const result = await generateText({
        model: openai.chat('fake/gpt-test'),
        tools,
        prompt: 'Price of a day pass?',
        stopWhen: stepCountIs(3),
      });
      expect(result.text).toBe('12 euros.');
      expect(JSON.stringify(result.steps[0]!.toolResults)).toContain('costs 12 euros');
      expect(lastToolResult()).toContain('fares.md');

      const { resources } = await client.listResources();
      expect(resources.map((resource) => resource.uri)).toContain(`fathom://files/${fileId}`);
      const read = await client.readResource({ uri: `fathom://vector_stores/${storeId}/files/${fileId}` });
      expect(JSON.stringify(read.contents)).toContain('costs 12 euros');
    } finally {
      await client.close();
    }
  });
});

describe('the MCP Inspector CLI', () => {
  const require = createRequire(import.meta.url);
  const cli = join(dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json')), 'build', 'cli.js');
  const inspect = async (...args: string[]) => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, '--cli', `${server.url}/mcp`, '--transport', 'http', '--header', `Authorization: Bearer ${server.apiKey}`, ...args],
      // The CLI looks for its package.json relative to the working directory but imports it relative to its
      // module (inspector-cli 1.0.3): run it from its build directory, where both agree.
      { timeout: 60_000, cwd: dirname(cli) },
    );
    return JSON.parse(stdout) as Record<string, unknown>;
  };

  it("lists Fathom's tools and calls file_search", async () => {
    const listed = (await inspect('--method', 'tools/list')) as { tools: Array<{ name: string }> };
    expect(listed.tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['file_search', 'list_vector_stores']));
    const called = (await inspect(
      '--method',
      'tools/call',
      '--tool-name',
      'file_search',
      '--tool-arg',
      'query=ferry day pass',
      `vector_store_ids=["${storeId}"]`,
    )) as { content: Array<{ text: string }>; isError?: boolean };
    expect(called.isError).toBeFalsy();
    expect(called.content[0]!.text).toContain('fares.md');
    expect(called.content[0]!.text).toContain('costs 12 euros');
  });
});
