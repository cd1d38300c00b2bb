import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the test server received, with its body read. */
export interface RecordedRequest {
  method: string;
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** `body` parsed as JSON when it is JSON, else undefined. */
  json: any;
}

export type TestHandler = (request: RecordedRequest, response: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export interface TestServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Replaces the handler of one `METHOD /path` (exact path, query ignored). */
  route(method: string, path: string, handler: TestHandler): void;
  close(): Promise<void>;
}

/** Helpers for answers tests commonly need. */
export const respond = {
  json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(body));
  },
  text(response: ServerResponse, status: number, body: string, contentType = 'text/plain'): void {
    response.writeHead(status, { 'content-type': contentType });
    response.end(body);
  },
  /** Writes SSE `data:` lines (objects are JSON-encoded), optionally `event:` names, with a delay between chunks. */
  async sse(response: ServerResponse, events: Array<unknown | { event: string; data: unknown }>, delayMs = 0): Promise<void> {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const item of events) {
      const named = item && typeof item === 'object' && 'event' in (item as any) && 'data' in (item as any);
      const event = named ? (item as { event: string }).event : undefined;
      const data = named ? (item as { data: unknown }).data : item;
      response.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
      if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    }
    response.end();
  },
};

/**
 * A real HTTP server on 127.0.0.1:<ephemeral> for tests of outbound HTTP: answers per route,
 * records every request. Unrouted requests answer 404 JSON.
 */
export async function createTestServer(routes: Record<string, TestHandler> = {}): Promise<TestServer> {
  const table = new Map<string, TestHandler>(Object.entries(routes));
  const requests: RecordedRequest[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer(async (raw, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of raw) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const parsed = new URL(raw.url ?? '/', 'http://127.0.0.1');
    let json: any;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const recorded: RecordedRequest = {
      method: raw.method ?? 'GET',
      url: raw.url ?? '/',
      path: parsed.pathname,
      query: parsed.searchParams,
      headers: raw.headers,
      body,
      json,
    };
    requests.push(recorded);
    const handler = table.get(`${recorded.method} ${recorded.path}`) ?? table.get(`* ${recorded.path}`) ?? table.get('*');
    try {
      if (!handler) respond.json(response, 404, { error: { message: `no route ${recorded.method} ${recorded.path}` } });
      else await handler(recorded, response, raw);
    } catch (error) {
      if (!response.headersSent) respond.json(response, 500, { error: { message: String(error) } });
      else response.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    route(method, path, handler) {
      table.set(`${method} ${path}`, handler);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
