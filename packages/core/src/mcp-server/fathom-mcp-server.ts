import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  isInitializeRequest,
  LATEST_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import { FathomError, InvalidRequestError, NotFoundError } from '../errors';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { type DataToolPolling, dataTools } from './data-tools';
import { documentTools } from './document-tools';
import { createProtocolServer } from './protocol-server';
import { AccountResources } from './resources';
import { McpSessions, type McpSessionsOptions } from './sessions';
import type { McpSources } from './sources';
import { accountToolSet, agentToolSet } from './tool-sets';
import type { McpScope, McpTool } from './types';

export interface FathomMcpServerOptions {
  db: SqlClient;
  /** What the tools and resources read and run (see `mcpSourcesOf`). */
  sources: McpSources;
  log: Logger;
  /** Session settings (idle timeout, clock). */
  sessions?: Pick<McpSessionsOptions, 'idleMs' | 'now'>;
  /** How a data-tool call follows its job. */
  polling?: DataToolPolling;
}

/** What one HTTP request brings besides the `Request`: its JSON body when the server already parsed it. */
export interface McpRequestOptions {
  body?: unknown;
}

const ACCOUNT_INSTRUCTIONS =
  "Fathom, for one account: file_search searches the account's vector stores (list_vector_stores gives their ids) and " +
  'answers passages with file names and scores; each data tool (website-contacts, maps…) runs a billed job and answers ' +
  "its items; each agent_* tool runs one of the account's published agents. Resources: the account's files and " +
  'vector-store files as text.';

/**
 * A refusal of the HTTP layer (no session, an unknown one, a method this server does not serve) in the
 * error shape of every Fathom route; JSON-RPC errors are for messages the protocol server reads.
 */
function refusal(error: FathomError, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(error.toJSON()), {
    status: error.status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

const METHOD_NOT_ALLOWED = new FathomError(
  'Method not allowed: POST sends messages and DELETE ends a session. This server sends no message outside the answer to a POST (no GET stream).',
  { status: 405, code: 'method_not_allowed' },
);

/** The header a session travels in, as error messages name it. */
const SESSION_HEADER = 'Mcp-Session-Id';

/** `account`, or `agent:<id>`: the endpoint a session belongs to. */
const scopeKey = (scope: McpScope) => (scope.kind === 'account' ? 'account' : `agent:${scope.agentId}`);

/**
 * Fathom as an MCP server over Streamable HTTP, for one authenticated account: `/mcp` (documents, data
 * tools, published agents, the account's files as resources) and `/v1/agents/{id}/mcp` (one agent's
 * routes and `run`). Works behind a load balancer with no sticky sessions: each request gets its own
 * protocol server and transport (the SDK's stateless mode), and the session — opened by `initialize`,
 * named by `Mcp-Session-Id`, ended by DELETE — is a database row every node reads. Server-to-client
 * messages (progress) travel on the SSE answer of the request they belong to; GET answers 405.
 */
export class FathomMcpServer {
  readonly sessions: McpSessions;
  readonly #sources: McpSources;
  readonly #log: Logger;
  readonly #polling: DataToolPolling | undefined;
  /** The tools of `/mcp` that are the same for every account (documents, data tools), made once. */
  #fixedTools: McpTool[] | undefined;

  constructor(options: FathomMcpServerOptions) {
    this.sessions = new McpSessions({ db: options.db, log: options.log, ...options.sessions });
    this.#sources = options.sources;
    this.#log = options.log;
    this.#polling = options.polling;
  }

  /**
   * Answers one HTTP request to an MCP endpoint. One agent's endpoint answers 404 (`NotFoundError`) for an
   * agent that is not the account's, and 409 before its first publish, as `POST /v1/agents/{id}/run`.
   */
  async handle(accountId: string, scope: McpScope, request: Request, options: McpRequestOptions = {}): Promise<Response> {
    const endpoint = scope.kind === 'agent' ? await this.#sources.agents.publishedTools(accountId, scope.agentId) : undefined;
    if (request.method === 'GET') {
      // No message of this server is sent outside the answer of the request it belongs to (the spec's 405).
      return refusal(METHOD_NOT_ALLOWED, { allow: 'POST, DELETE' });
    }
    if (request.method === 'DELETE') return this.#end(accountId, scope, request);
    if (request.method !== 'POST') return refusal(METHOD_NOT_ALLOWED, { allow: 'POST, DELETE' });

    const messages = Array.isArray(options.body) ? options.body : [options.body];
    const initialize = messages.length === 1 ? messages.find((message) => isInitializeRequest(message)) : undefined;
    let sessionId: string | undefined;
    if (initialize) {
      const requested = initialize.params.protocolVersion;
      sessionId = await this.sessions.open(accountId, scopeKey(scope), {
        protocolVersion: SUPPORTED_PROTOCOL_VERSIONS.includes(requested) ? requested : LATEST_PROTOCOL_VERSION,
        clientName: initialize.params.clientInfo.name,
        clientVersion: initialize.params.clientInfo.version,
      });
    } else {
      const refused = await this.#checkSession(accountId, scope, request);
      if (refused) return refused;
    }

    const tools = endpoint
      ? agentToolSet(this.#sources, { agent: endpoint, variables: endpoint.variables, routes: endpoint.tools })
      : accountToolSet(this.#sources, accountId, this.#accountTools());
    const server = createProtocolServer({
      accountId,
      name: endpoint ? `fathom-agent-${endpoint.id}` : 'fathom',
      instructions: endpoint
        ? `The Fathom agent "${endpoint.name}": run answers a message; the other tools are the routes the agent calls.`
        : ACCOUNT_INSTRUCTIONS,
      tools,
      resources: endpoint ? undefined : new AccountResources(this.#sources.documents, accountId),
      log: this.#log,
    });
    // A tool call may last (a data-tool job, an agent run): its answer is an SSE stream carrying progress
    // notifications first. Anything else is answered as one JSON body.
    const calls = messages.some((message) => CallToolRequestSchema.safeParse(message).success);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !calls });
    await server.connect(transport);
    const response = await transport.handleRequest(request, { parsedBody: options.body });
    if (sessionId) response.headers.set(SESSION_HEADER, sessionId);
    // A server and transport that answered are left to the garbage collector (closing costs an error and
    // an abort per request); one whose client went away mid-answer is closed, which aborts its tool call.
    if (!response.body || !calls) return response;
    return new Response(
      closingOnCancel(response.body, () => transport.close()),
      response,
    );
  }

  #accountTools(): McpTool[] {
    this.#fixedTools ??= [...documentTools(this.#sources.documents), ...dataTools(this.#sources.dataTools, this.#polling)];
    return this.#fixedTools;
  }

  /** 400 without a session id (but for `initialize`), 404 for one that is not open for this account on this endpoint. */
  async #checkSession(accountId: string, scope: McpScope, request: Request): Promise<Response | undefined> {
    const id = request.headers.get(SESSION_HEADER);
    if (!id) return refusal(missingSession());
    if (!(await this.sessions.isOpen(accountId, scopeKey(scope), id))) return refusal(unknownSession(id));
    return undefined;
  }

  /** DELETE: ends the session on every node (its next request answers 404 anywhere). */
  async #end(accountId: string, scope: McpScope, request: Request): Promise<Response> {
    const id = request.headers.get(SESSION_HEADER);
    if (!id) return refusal(missingSession());
    if (!(await this.sessions.end(accountId, scopeKey(scope), id))) return refusal(unknownSession(id));
    return new Response(null, { status: 200 });
  }
}

/** 400: a request other than `initialize` without its session. */
function missingSession(): InvalidRequestError {
  return new InvalidRequestError(
    `Missing required header: '${SESSION_HEADER}'. Send initialize first, then the id its answer carries in this header.`,
    SESSION_HEADER,
    'missing_required_parameter',
  );
}

/** 404: a session that never was this account's on this endpoint, or has ended: the client starts a new one. */
function unknownSession(id: string): NotFoundError {
  return new NotFoundError('MCP session', id, SESSION_HEADER);
}

/** The stream of an SSE answer, calling `close` when its reader cancels it (the client went away). */
function closingOnCancel(body: ReadableStream<Uint8Array>, close: () => Promise<void>): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel(reason) {
      await reader.cancel(reason);
      await close();
    },
  });
}
