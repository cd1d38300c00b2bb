import { createFakeOpenAIUpstream, type FakeUpstream, startEdgeMcpServer } from '@fathom/core/test';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

/**
 * The `headers` and `authorization` of a Responses `mcp` tool live only in the memory of the process that
 * accepted a background response: that process runs it, and one that takes it over later ends it failed.
 */
const SECRET_TOKEN = 'sk-mcp-token-takeover-5d1e';

let openai: FakeUpstream;
/** The SDK-built edge server: it records every HTTP request (headers) and every tools/call it receives. */
let edge: Awaited<ReturnType<typeof startEdgeMcpServer>>;

const env = () => ({
  FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: openai.baseUrl } }),
  AGENT_EGRESS_ALLOW: `127.0.0.1:${edge.port}`,
});

beforeAll(async () => {
  [openai, edge] = await Promise.all([createFakeOpenAIUpstream([]), startEdgeMcpServer()]);
});

afterAll(async () => {
  await openai?.close();
  await edge?.close();
});

describe('the mcp credentials of a background response taken over by another process', () => {
  async function until(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('is run by the process that accepted it, not by another live process on the same database', async () => {
    const tool = {
      type: 'mcp',
      server_label: 'edge',
      server_url: edge.url,
      authorization: SECRET_TOKEN,
      require_approval: 'never',
    } as OpenAI.Responses.Tool.Mcp;
    // The other node polls the queue; the accepting one runs no worker of its own (start: false).
    const other = await startFathom({ env: env() });
    const accepting = await startFathom({ env: env(), dataDir: other.dataDir, start: false });
    try {
      openai.push({ toolCalls: [{ name: 'headers', arguments: {} }] }, { content: 'Sent with the token.' });
      const created = await accepting.client.responses.create({
        model: 'fake/gpt-test',
        input: 'Which headers?',
        background: true,
        tools: [tool],
      });
      await until(async () => {
        const { status } = await other.client.responses.retrieve(created.id);
        return status === 'completed' || status === 'failed';
      });
      const done = await other.client.responses.retrieve(created.id);
      expect(done.status).toBe('completed');
      // The call reached the server with the Authorization header only the accepting process held.
      const call = done.output.find((item) => item.type === 'mcp_call') as OpenAI.Responses.ResponseOutputItem.McpCall | undefined;
      expect(call?.output).toContain('authorization');
    } finally {
      await accepting.close({ keepData: true });
      await other.close({ keepData: false });
    }
  });

  it('ends it failed, saying the credentials were not available and to send it again, and never calls the server without them', async () => {
    const tool = {
      type: 'mcp',
      server_label: 'edge',
      server_url: edge.url,
      authorization: SECRET_TOKEN,
      require_approval: 'never',
    } as OpenAI.Responses.Tool.Mcp;
    const first = await startFathom({ env: env() });
    let second: TestFathom | undefined;
    try {
      const asked = openai.requests.length;
      openai.push({ content: 'never finishes', hang: true });
      const created = await first.client.responses.create({ model: 'fake/gpt-test', input: 'Work.', background: true, tools: [tool] });
      // The accepting process lists the tools with the token, then its model call hangs; then it stops.
      await until(async () => openai.requests.length > asked);
      expect(edge.requests.at(-1)?.authorization).toBe(`Bearer ${SECRET_TOKEN}`);
      await first.close({ keepData: true });
      const reached = edge.requests.length;
      second = await startFathom({ env: env(), dataDir: first.dataDir });
      const taker = second;
      await until(async () => (await taker.client.responses.retrieve(created.id)).status === 'failed');
      const failed = await taker.client.responses.retrieve(created.id);
      expect(failed.error).toMatchObject({
        code: 'server_error',
        message: expect.stringMatching(/server_label 'edge'.*only in the memory of the server that accepted.*Send the request again/),
      });
      // The taker reached neither the MCP server (no unauthenticated listing or call) nor the model.
      expect(edge.requests.length).toBe(reached);
      expect(openai.requests.length).toBe(asked + 1);
      const events: Array<{ type: string }> = [];
      for await (const event of await taker.client.responses.retrieve(created.id, { stream: true })) events.push(event);
      expect(events.at(-1)?.type).toBe('response.failed');
    } finally {
      await first.close({ keepData: true }).catch(() => undefined);
      await second?.close({ keepData: false });
    }
  });
});
