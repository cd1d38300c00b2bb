import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressDeniedError, EgressGuard } from '../egress';
import { MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
import { createTestServer, type TestServer } from '../test/test-server';
import { startEdgeMcpServer, startEverythingServer, type TestMcpServer } from '../test/mcp-servers';
import { connectMcpServer, McpClientError } from './index';

/** A guard that allows the loopback address the test servers listen on. */
const allowLoopback = new EgressGuard({ allow: ['127.0.0.1'] });
const strict = new EgressGuard();

afterAll(async () => {
  await allowLoopback.close();
  await strict.close();
});

describe('MCP client against server-everything (the MCP reference server)', () => {
  let streamable: TestMcpServer;
  let sse: TestMcpServer;
  beforeAll(async () => {
    [streamable, sse] = await Promise.all([startEverythingServer('streamableHttp'), startEverythingServer('sse')]);
  }, 30_000);
  afterAll(async () => {
    await Promise.all([streamable?.close(), sse?.close()]);
  });

  it('lists and calls tools over Streamable HTTP', async () => {
    const connection = await connectMcpServer({ url: streamable.url }, { fetch: allowLoopback.fetch });
    try {
      expect(connection.transport).toBe('streamable-http');
      const { tools, truncated } = await connection.listTools();
      expect(truncated).toBe(false);
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['echo', 'get-sum', 'get-tiny-image']));
      const sum = tools.find((tool) => tool.name === 'get-sum')!;
      expect(sum.inputSchema).toMatchObject({ type: 'object', properties: { a: expect.anything(), b: expect.anything() } });
      expect(await connection.callTool('get-sum', { a: 2, b: 3 })).toEqual({
        text: expect.stringContaining('5'),
        isError: false,
        truncated: false,
      });
      const image = await connection.callTool('get-tiny-image', {});
      expect(image.text).toMatch(/\[image: image\/png, \d+ bytes\]/);
    } finally {
      await connection.close();
    }
  });

  it('falls back to the older HTTP+SSE transport when the server answers the POST with a 4xx', async () => {
    const connection = await connectMcpServer({ url: sse.url }, { fetch: allowLoopback.fetch });
    try {
      expect(connection.transport).toBe('sse');
      const { tools } = await connection.listTools();
      expect(tools.map((tool) => tool.name)).toContain('echo');
      const echoed = await connection.callTool('echo', { message: 'over sse' });
      expect(echoed.text).toContain('over sse');
    } finally {
      await connection.close();
    }
  });

  it('refuses the loopback server without an allow-list entry, on both transports', async () => {
    for (const url of [streamable.url, sse.url]) {
      await expect(connectMcpServer({ url }, { fetch: strict.fetch })).rejects.toBeInstanceOf(EgressDeniedError);
    }
  });
});

describe('MCP client edge cases (a server built with the SDK)', () => {
  let edge: Awaited<ReturnType<typeof startEdgeMcpServer>>;
  beforeAll(async () => {
    edge = await startEdgeMcpServer({ extraTools: 120 });
  });
  afterAll(async () => edge?.close());

  it('reads every page of tools/list and stops at maxTools', async () => {
    const connection = await connectMcpServer({ url: edge.url }, { fetch: allowLoopback.fetch });
    try {
      const all = await connection.listTools();
      expect(all.tools).toHaveLength(127);
      expect(all.truncated).toBe(false);
      expect(all.tools.find((tool) => tool.name === 'slow')?.annotations).toEqual({ readOnlyHint: true });
      const few = await connection.listTools({ maxTools: 60 });
      expect(few.tools).toHaveLength(60);
      expect(few.truncated).toBe(true);
    } finally {
      await connection.close();
    }
  });

  it('sends the headers with every request, and never puts them in an error', async () => {
    const secret = 'sk-mcp-secret-123';
    const connection = await connectMcpServer(
      { url: edge.url, headers: { authorization: `Bearer ${secret}`, 'x-team': 'a' } },
      { fetch: allowLoopback.fetch },
    );
    try {
      expect((await connection.callTool('headers', {})).text).toContain('authorization');
      expect(edge.requests.slice(-1)[0]?.authorization).toBe(`Bearer ${secret}`);
      const error = await connection.callTool('nope', {}).catch((caught: Error) => caught);
      expect(error).toBeInstanceOf(McpClientError);
      expect((error as Error).message).toContain('tools/call nope');
      expect(JSON.stringify(error) + (error as Error).message).not.toContain(secret);
    } finally {
      await connection.close();
    }
  });

  it('turns isError, mixed content and huge answers into bounded text', async () => {
    const connection = await connectMcpServer({ url: edge.url }, { fetch: allowLoopback.fetch });
    try {
      expect(await connection.callTool('fail', {})).toEqual({ text: 'the database is down', isError: true, truncated: false });
      const mixed = await connection.callTool('mixed', {});
      expect(mixed.text).toBe(
        'Here is the chart.\n[image: image/png, 16 bytes]\n[resource: file:///notes.txt]\nthe notes\n[resource link: big.csv file:///big.csv]',
      );
      const huge = await connection.callTool('huge', { size: 250_000 });
      expect(huge.truncated).toBe(true);
      expect(huge.text).toHaveLength(MAX_TOOL_RESULT_CHARS);
      expect(huge.text).toMatch(/\[Result truncated: it is longer than 100,000 characters; only the first part is shown\.\]$/);
    } finally {
      await connection.close();
    }
  });

  it('gives up on a slow tool at its timeout and tells the server to cancel; an abort signal ends a call', async () => {
    const connection = await connectMcpServer({ url: edge.url }, { fetch: allowLoopback.fetch });
    try {
      const error = await connection.callTool('slow', { ms: 30_000 }, { timeoutMs: 200 }).catch((caught: Error) => caught);
      expect(error).toBeInstanceOf(McpClientError);
      expect(error).toMatchObject({ code: 'mcp_timeout', status: 504 });
      const controller = new AbortController();
      const reason = new Error('client went away');
      setTimeout(() => controller.abort(reason), 100);
      await expect(connection.callTool('slow', { ms: 30_000 }, { signal: controller.signal })).rejects.toBe(reason);
      await expect.poll(() => edge.cancelled.length).toBe(2);
      expect(await connection.callTool('slow', { ms: 1 })).toMatchObject({ text: 'done', isError: false });
    } finally {
      await connection.close();
    }
  });

  it('calls onToolsChanged on notifications/tools/list_changed, and the new tool is listed', async () => {
    let changed = 0;
    const connection = await connectMcpServer({ url: edge.url }, { fetch: allowLoopback.fetch, onToolsChanged: () => changed++ });
    try {
      const before = (await connection.listTools({ maxTools: 1000 })).tools.length;
      await connection.callTool('add_tool', {});
      await expect.poll(() => changed).toBeGreaterThan(0);
      expect((await connection.listTools({ maxTools: 1000 })).tools.length).toBe(before + 1);
    } finally {
      await connection.close();
    }
  });
});

describe('MCP client egress (SSRF)', () => {
  let redirector: TestServer;
  beforeAll(async () => {
    redirector = await createTestServer();
  });
  afterAll(async () => redirector?.close());

  it('refuses a metadata address and a loopback address without an allow-list entry', async () => {
    for (const url of ['http://169.254.169.254/mcp', 'http://127.0.0.1:1/mcp', 'http://[::1]:1/mcp']) {
      await expect(connectMcpServer({ url }, { fetch: strict.fetch })).rejects.toBeInstanceOf(EgressDeniedError);
    }
  });

  it('refuses a public-looking server that redirects to a private address', async () => {
    // The redirector itself is allowed (it stands for a public server); the hop it redirects to is not.
    const guard = new EgressGuard({ allow: [`127.0.0.1:${redirector.port}`] });
    redirector.route('POST', '/mcp', (_request, response) => {
      response.writeHead(307, { location: 'http://10.0.0.7/mcp' }).end();
    });
    try {
      const error = await connectMcpServer({ url: `${redirector.url}/mcp` }, { fetch: guard.fetch }).catch((caught: Error) => caught);
      expect(error).toBeInstanceOf(EgressDeniedError);
      expect((error as EgressDeniedError).url).toBe('http://10.0.0.7/mcp');
      expect(redirector.requests.filter((request) => request.path === '/mcp')).toHaveLength(1);
    } finally {
      await guard.close();
    }
  });

  it('never runs a stdio command unless given one (remote targets need the guard fetch)', async () => {
    await expect(connectMcpServer({ url: 'http://example.com/mcp' })).rejects.toThrow(/needs options.fetch/);
  });
});
