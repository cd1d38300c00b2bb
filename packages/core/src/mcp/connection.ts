import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
import { metrics } from '../observability/metrics';
import { inSpan } from '../observability/tracing';
import { mcpResultToText } from './content';
import { McpClientError, toMcpClientError } from './errors';
import type {
  McpCallToolOptions,
  McpConnectOptions,
  McpListToolsOptions,
  McpServerTarget,
  McpToolInfo,
  McpToolList,
  McpToolOutcome,
} from './types';

/** Tools kept from one server by default (`tools/list` stops there). */
export const MAX_MCP_TOOLS = 128;
/** Pages of `tools/list` read at most (a server answering cursors forever is cut off). */
const MAX_LIST_PAGES = 50;
export const MCP_CONNECT_TIMEOUT_MS = 10_000;
export const MCP_LIST_TIMEOUT_MS = 10_000;
export const MCP_CALL_TIMEOUT_MS = 60_000;
/** Fathom's name and version in `initialize`. */
const CLIENT_INFO = { name: 'fathom', version: '0.1.0' };
/** One validator for every client (the SDK's `Client` otherwise compiles a new ajv per connection). */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

export type McpTransportKind = 'streamable-http' | 'sse' | 'stdio';

/** Runs `work` with a deadline and the caller's signal: on timeout a `McpClientError` (504), on abort the signal's reason. */
async function bounded<T>(
  what: string,
  timeoutMs: number,
  signal: AbortSignal | undefined,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  const timeout = new McpClientError(`${what} timed out after ${timeoutMs} ms`, 'mcp_timeout');
  const timer = setTimeout(() => controller.abort(timeout), timeoutMs);
  const onAbort = () => controller.abort(signal?.reason);
  if (signal?.aborted) onAbort();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    return await new Promise<T>((resolve, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason);
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
      work(controller.signal).then(resolve, reject);
    });
  } catch (error) {
    if (controller.signal.aborted) throw controller.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

/** The host a remote target names (for messages: never its path, query or credentials). */
function describeTarget(target: McpServerTarget): string {
  if ('command' in target) return `(stdio) ${target.command}`;
  try {
    return new URL(target.url).host;
  } catch {
    return '(invalid URL)';
  }
}

function newClient(options: McpConnectOptions): Client {
  const client = new Client(CLIENT_INFO, { capabilities: {}, jsonSchemaValidator: SHARED_VALIDATOR });
  const { onToolsChanged } = options;
  if (onToolsChanged) client.setNotificationHandler(ToolListChangedNotificationSchema, async () => onToolsChanged());
  return client;
}

/**
 * One open connection to an MCP server (the official SDK's `Client`). Made by `connectMcpServer`;
 * `close()` ends it (and a stdio server's process).
 */
export class McpConnection {
  constructor(
    private readonly client: Client,
    /** Which transport answered: Streamable HTTP, or the older HTTP+SSE it fell back to, or stdio. */
    readonly transport: McpTransportKind,
    /** The server's host (or stdio command), for messages. */
    readonly server: string,
  ) {}

  /** `serverInfo` of the server's `initialize` answer. */
  get serverInfo(): { name: string; version: string } | undefined {
    return this.client.getServerVersion();
  }

  /** The server's tools (`tools/list`, every page until `maxTools`), within one deadline. */
  async listTools(options: McpListToolsOptions = {}): Promise<McpToolList> {
    const maxTools = options.maxTools ?? MAX_MCP_TOOLS;
    const timeoutMs = options.timeoutMs ?? MCP_LIST_TIMEOUT_MS;
    try {
      return await bounded(`MCP server ${this.server}: tools/list`, timeoutMs, options.signal, async (signal) => {
        const tools: McpToolInfo[] = [];
        let cursor: string | undefined;
        for (let page = 0; page < MAX_LIST_PAGES; page++) {
          const answer = await this.client.listTools(cursor ? { cursor } : {}, { signal, timeout: timeoutMs });
          for (const tool of answer.tools) {
            if (tools.length >= maxTools) return { tools, truncated: true };
            tools.push({
              name: tool.name,
              ...(tool.description !== undefined ? { description: tool.description } : {}),
              inputSchema: tool.inputSchema as Record<string, unknown>,
              ...(tool.annotations ? { annotations: { ...tool.annotations } } : {}),
            });
          }
          cursor = answer.nextCursor;
          if (!cursor) return { tools, truncated: false };
        }
        return { tools, truncated: true };
      });
    } catch (error) {
      if (options.signal?.aborted && error === options.signal.reason) throw error;
      throw toMcpClientError(error, this.server, 'tools/list');
    }
  }

  /**
   * Calls one tool and turns its result into text (`mcpResultToText`, cut at `maxChars`). A result with
   * `isError: true` is an outcome, not an exception; a protocol error (unknown tool, bad arguments), a
   * refused or failed connection or the deadline throws (`McpClientError`, or `EgressDeniedError`).
   * Aborting `signal` sends `notifications/cancelled` and rejects with the signal's reason.
   */
  async callTool(name: string, args: Record<string, unknown>, options: McpCallToolOptions = {}): Promise<McpToolOutcome> {
    const timeoutMs = options.timeoutMs ?? MCP_CALL_TIMEOUT_MS;
    try {
      // GenAI conventions: a tool execution span (the server's host and the tool name only, never arguments, headers or the URL's path and query).
      const span = { 'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': name, 'fathom.mcp.server': this.server };
      const result = await inSpan(`execute_tool ${name}`, span, () =>
        bounded(`MCP server ${this.server}: tools/call ${name}`, timeoutMs, options.signal, (signal) =>
          this.client.callTool({ name, arguments: args }, undefined, { signal, timeout: timeoutMs }),
        ),
      );
      const outcome = mcpResultToText(result as Parameters<typeof mcpResultToText>[0], options.maxChars ?? MAX_TOOL_RESULT_CHARS);
      metrics.mcpCalls.inc({ outcome: outcome.isError ? 'error' : 'success' });
      return outcome;
    } catch (error) {
      // A call stopped by its caller (a cancelled run) has no outcome to count.
      if (options.signal?.aborted && error === options.signal.reason) throw error;
      metrics.mcpCalls.inc({ outcome: 'error' });
      throw toMcpClientError(error, this.server, `tools/call ${name}`);
    }
  }

  /** Ends the connection (a Streamable HTTP session is left to expire on the server; a stdio process is stopped). */
  async close(): Promise<void> {
    await this.client.close().catch(() => undefined);
  }
}

/** Whether a Streamable HTTP failure is the answer of a server that only speaks the older HTTP+SSE transport. */
function looksLikeSseOnly(error: unknown): boolean {
  // 401/403 are the server's answer about credentials, not about the transport.
  if (!(error instanceof StreamableHTTPError) || typeof error.code !== 'number') return false;
  return error.code >= 400 && error.code < 500 && error.code !== 401 && error.code !== 403;
}

async function open(client: Client, transport: Transport, signal: AbortSignal, timeoutMs: number): Promise<void> {
  await client.connect(transport, { signal, timeout: timeoutMs });
}

/**
 * Connects to an MCP server. A remote server is tried with the Streamable HTTP transport first; when it
 * answers that POST with a 4xx (a server of the older HTTP+SSE protocol), the same URL is tried with the
 * SSE transport, as the SDK documents for backwards compatibility. Every request goes through
 * `options.fetch` (the egress guard), redirects included; the target's headers go with every request and
 * appear in no error. A stdio target (operator configuration only) starts its command.
 */
export async function connectMcpServer(target: McpServerTarget, options: McpConnectOptions = {}): Promise<McpConnection> {
  const server = describeTarget(target);
  const timeoutMs = options.timeoutMs ?? MCP_CONNECT_TIMEOUT_MS;
  if ('command' in target) {
    const client = newClient(options);
    const transport = new StdioClientTransport({
      command: target.command,
      args: target.args ?? [],
      env: { ...getDefaultEnvironment(), ...(target.env ?? {}) },
      stderr: 'ignore',
    });
    try {
      await bounded(`MCP server ${server}: connect`, timeoutMs, options.signal, (signal) => open(client, transport, signal, timeoutMs));
    } catch (error) {
      await client.close().catch(() => undefined);
      throw toMcpClientError(error, server, 'connect');
    }
    return new McpConnection(client, 'stdio', server);
  }
  if (!options.fetch) throw new Error('connectMcpServer: a remote server needs options.fetch (the egress guard).');
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    throw new McpClientError(`MCP server URL is not a valid absolute URL.`);
  }
  const requestInit: RequestInit = { headers: { ...(target.headers ?? {}) } };
  const common = { fetch: options.fetch, requestInit, redirectPolicy: 'follow' as const };
  return bounded(`MCP server ${server}: connect`, timeoutMs, options.signal, async (signal) => {
    const streamable = newClient(options);
    try {
      await open(streamable, new StreamableHTTPClientTransport(url, common), signal, timeoutMs);
      return new McpConnection(streamable, 'streamable-http', server);
    } catch (error) {
      await streamable.close().catch(() => undefined);
      if (!looksLikeSseOnly(error)) throw toMcpClientError(error, server, 'connect');
    }
    const sse = newClient(options);
    try {
      await open(sse, new SSEClientTransport(url, common), signal, timeoutMs);
      return new McpConnection(sse, 'sse', server);
    } catch (error) {
      await sse.close().catch(() => undefined);
      throw toMcpClientError(error, server, 'connect');
    }
  }).catch((error: unknown) => {
    if (options.signal?.aborted && error === options.signal.reason) throw error;
    throw toMcpClientError(error, server, 'connect');
  });
}
