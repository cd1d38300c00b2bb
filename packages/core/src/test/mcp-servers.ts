import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** A real MCP server on 127.0.0.1 for tests: its endpoint URL and how to stop it. */
export interface TestMcpServer {
  /** The MCP endpoint (`…/mcp`, or `…/sse` for the SSE mode). */
  url: string;
  port: number;
  /** Headers of every HTTP request the server received (the edge server only). */
  requests: IncomingMessage['headers'][];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * `@modelcontextprotocol/server-everything` (the reference server of the MCP project, not ours) in a
 * child process, over Streamable HTTP (`/mcp`) or the older HTTP+SSE transport (`/sse`).
 */
export async function startEverythingServer(mode: 'streamableHttp' | 'sse'): Promise<TestMcpServer> {
  const entry = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const child: ChildProcess = spawn(process.execPath, [entry, mode], {
      env: { ...process.env, PORT: String(port) },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const started = await new Promise<boolean>((resolve) => {
      let seen = '';
      const timer = setTimeout(() => resolve(false), 15_000);
      child.stderr?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        if (/listening on port|running on port/i.test(seen)) {
          clearTimeout(timer);
          resolve(true);
        } else if (/in use|EADDRINUSE/.test(seen)) {
          clearTimeout(timer);
          resolve(false);
        }
      });
      child.once('exit', () => resolve(false));
    });
    if (!started) {
      child.kill();
      if (attempt < 3) continue;
      throw new Error(`server-everything (${mode}) did not start`);
    }
    child.stderr?.resume();
    return {
      url: `http://127.0.0.1:${port}/${mode === 'sse' ? 'sse' : 'mcp'}`,
      port,
      requests: [],
      close: () =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill();
        }),
    };
  }
}

export interface EdgeMcpServerOptions {
  /** Extra tools named `tool_<n>` (listed 50 per page). Default 0. */
  extraTools?: number;
}

const EDGE_TOOLS: Tool[] = [
  { name: 'echo', description: 'Echoes its text.', inputSchema: { type: 'object', properties: { text: { type: 'string' } } } },
  {
    name: 'slow',
    description: 'Answers after `ms` milliseconds, or never when cancelled.',
    inputSchema: { type: 'object', properties: { ms: { type: 'number' } } },
    annotations: { readOnlyHint: true },
  },
  { name: 'fail', description: 'Answers isError.', inputSchema: { type: 'object' } },
  { name: 'huge', description: 'Answers `size` characters.', inputSchema: { type: 'object', properties: { size: { type: 'number' } } } },
  { name: 'mixed', description: 'Answers text, an image, a resource and structured content.', inputSchema: { type: 'object' } },
  { name: 'add_tool', description: 'Adds a tool and says so (tools/list_changed).', inputSchema: { type: 'object' } },
  { name: 'headers', description: 'Answers the names of the request headers it got.', inputSchema: { type: 'object' } },
];

/**
 * A small MCP server built with the official SDK for the edge cases server-everything lacks: a slow
 * tool that notices cancellation, a failing one, a huge answer, mixed content, a tool list that changes
 * (with `notifications/tools/list_changed`) and a paginated list. Stateful Streamable HTTP on 127.0.0.1.
 */
export async function startEdgeMcpServer(
  options: EdgeMcpServerOptions = {},
): Promise<TestMcpServer & { cancelled: string[]; calls: string[] }> {
  const tools = [...EDGE_TOOLS];
  for (let index = 0; index < (options.extraTools ?? 0); index++) {
    tools.push({ name: `tool_${index}`, description: `Extra tool ${index}.`, inputSchema: { type: 'object' } });
  }
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; server: Server }>();
  const requests: IncomingMessage['headers'][] = [];
  const cancelled: string[] = [];
  /** The name of every `tools/call` the server received, in order. */
  const calls: string[] = [];
  const PAGE = 50;

  function protocolServer(): Server {
    const server = new Server({ name: 'edge', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
    server.setRequestHandler(ListToolsRequestSchema, async (request) => {
      const start = Number(request.params?.cursor ?? 0);
      const page = tools.slice(start, start + PAGE);
      return { tools: page, ...(start + PAGE < tools.length ? { nextCursor: String(start + PAGE) } : {}) };
    });
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      calls.push(request.params.name);
      switch (request.params.name) {
        case 'echo':
          return { content: [{ type: 'text', text: String(args.text ?? '') }] };
        case 'slow':
          return new Promise((resolve) => {
            const timer = setTimeout(() => resolve({ content: [{ type: 'text', text: 'done' }] }), Number(args.ms ?? 60_000));
            extra.signal.addEventListener('abort', () => {
              clearTimeout(timer);
              cancelled.push('slow');
            });
          });
        case 'fail':
          return { content: [{ type: 'text', text: 'the database is down' }], isError: true };
        case 'huge':
          return { content: [{ type: 'text', text: 'x'.repeat(Number(args.size ?? 250_000)) }] };
        case 'mixed':
          return {
            content: [
              { type: 'text', text: 'Here is the chart.' },
              { type: 'image', data: Buffer.from('not really a png').toString('base64'), mimeType: 'image/png' },
              { type: 'resource', resource: { uri: 'file:///notes.txt', mimeType: 'text/plain', text: 'the notes' } },
              { type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv' },
            ],
            structuredContent: { total: 3 },
          };
        case 'add_tool': {
          tools.push({ name: `added_${tools.length}`, inputSchema: { type: 'object' } });
          await Promise.all([...sessions.values()].map(({ server: each }) => each.sendToolListChanged().catch(() => undefined)));
          return { content: [{ type: 'text', text: 'added' }] };
        }
        case 'headers':
          return {
            content: [
              {
                type: 'text',
                text: Object.keys(extra.requestInfo?.headers ?? {})
                  .sort()
                  .join(','),
              },
            ],
          };
        default:
          throw new Error(`Unknown tool: ${request.params.name}`);
      }
    });
    return server;
  }

  const http: HttpServer = createServer(async (request, response) => {
    requests.push(request.headers);
    if (!request.url?.startsWith('/mcp')) {
      response.writeHead(404).end();
      return;
    }
    const id = request.headers['mcp-session-id'];
    let session = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!session) {
      if (request.method !== 'POST' || id) {
        response
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
      const server = protocolServer();
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => crypto.randomUUID(),
        onsessioninitialized: (sessionId) => {
          sessions.set(sessionId, { transport, server });
        },
      });
      await server.connect(transport);
      session = { transport, server };
    }
    await session.transport.handleRequest(request, response);
  });
  const sockets = new Set<import('node:net').Socket>();
  http.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    requests,
    cancelled,
    calls,
    close: async () => {
      for (const { server } of sessions.values()) await server.close().catch(() => undefined);
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => http.close(resolve));
    },
  };
}
