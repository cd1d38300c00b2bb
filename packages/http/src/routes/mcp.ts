// Fathom's MCP endpoints (Streamable HTTP): `/mcp` for the account, `/v1/agents/{id}/mcp` for one published agent.
import type { McpScope } from '@fathom/core';
import type { FastifyRequest } from 'fastify';
import { defineRoute, type Route, type RouteMethod } from '../route';

/** Headers that describe the connection or carry the key: the MCP transport reads none of them. */
const NOT_FORWARDED = new Set(['authorization', 'host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade']);

/** The request as the MCP transport reads it (a web `Request`); its JSON body, already parsed, goes beside it. */
function toWebRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return new Request(new URL(request.url, `http://${request.headers.host ?? 'localhost'}`), { method: request.method, headers });
}

const ACCOUNT: McpScope = { kind: 'account' };

const METHODS: Array<{ method: RouteMethod; summary: string }> = [
  { method: 'POST', summary: 'Send JSON-RPC messages (initialize, tools/list, tools/call, resources/list, resources/read…).' },
  { method: 'GET', summary: 'Answers 405: this server sends messages only on the answers to POST requests.' },
  { method: 'DELETE', summary: 'End the session named by Mcp-Session-Id, on every node.' },
];

/** `POST/GET/DELETE /mcp`: the account's documents, data tools, published agents and files over MCP. */
export const mcpRoutes: Route[] = METHODS.map(({ method, summary }) =>
  defineRoute({
    method,
    path: '/mcp',
    summary: `MCP (Streamable HTTP): ${summary}`,
    operationId: `mcp${method[0]}${method.slice(1).toLowerCase()}`,
    handler: ({ fathom, account, request }) => fathom.mcpServer.handle(account.id, ACCOUNT, toWebRequest(request), { body: request.body }),
  }),
);

/** `POST/GET/DELETE /v1/agents/{id}/mcp`: one published agent's Webhook routes and `run` over MCP. */
export const agentMcpRoutes: Route[] = METHODS.map(({ method, summary }) =>
  defineRoute({
    method,
    path: '/v1/agents/:id/mcp',
    summary: `One agent over MCP (Streamable HTTP): ${summary}`,
    operationId: `agentMcp${method[0]}${method.slice(1).toLowerCase()}`,
    handler: ({ fathom, account, params, request }) =>
      fathom.mcpServer.handle(account.id, { kind: 'agent', agentId: params.id }, toWebRequest(request), { body: request.body }),
  }),
);
