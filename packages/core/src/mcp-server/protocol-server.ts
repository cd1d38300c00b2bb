import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { FathomError } from '../errors';
import type { Logger } from '../internal/logger';
import { type AccountResources, RESOURCE_TEMPLATES } from './resources';
import { toolErrorResult } from './tool-arguments';
import type { McpToolContext, McpToolSet } from './types';

/**
 * The JSON Schema validator every protocol server shares. The SDK's `Server` makes a new ajv instance
 * when given none (it validates elicitation answers, which Fathom never asks for): milliseconds per
 * request, when a server is made per request.
 */
const SHARED_VALIDATOR = new AjvJsonSchemaValidator();

/** Fathom's version as its MCP server states it in `initialize`. */
export const MCP_SERVER_VERSION = '0.1.0';

export interface ProtocolServerOptions {
  accountId: string;
  /** `serverInfo.name`: `fathom`, or `fathom-agent-<name>` for one agent's endpoint. */
  name: string;
  /** Shown to the client's model in `initialize`. */
  instructions: string;
  tools: McpToolSet;
  /** The account's files as resources (`/mcp` only). */
  resources?: AccountResources;
  log: Logger;
}

/**
 * Runs a request handler so that what the client learns of a failure is what the HTTP API would say:
 * a FathomError's message as invalid params, anything else logged and answered as an internal error
 * that shows nothing of the server.
 */
async function answering<T>(what: string, log: Logger, handle: () => Promise<T>): Promise<T> {
  try {
    return await handle();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (error instanceof FathomError) throw new McpError(ErrorCode.InvalidParams, error.message);
    log.error(`mcp: ${what} failed`, error);
    throw new McpError(ErrorCode.InternalError, 'The server had an error while processing this request.');
  }
}

/**
 * The MCP protocol side of one request (the official SDK's low-level `Server`): tools for `tools/list`
 * and `tools/call`, and on `/mcp` the account's resources. A server is made per HTTP request; what lasts
 * between requests (the session) is in the database, so any node answers any request.
 */
export function createProtocolServer(options: ProtocolServerOptions): Server {
  const { accountId, tools, resources, log } = options;
  const server = new Server(
    { name: options.name, version: MCP_SERVER_VERSION },
    {
      capabilities: { tools: { listChanged: false }, ...(resources ? { resources: { subscribe: false, listChanged: false } } : {}) },
      instructions: options.instructions,
      jsonSchemaValidator: SHARED_VALIDATOR,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, () =>
    answering('tools/list', log, async () => ({ tools: (await tools.list()).map((tool) => tool.definition) })),
  );
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args = {} } = request.params;
    const tool = await answering('tools/call', log, () => tools.find(name));
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: '${name}'. tools/list names the tools of this endpoint.`);
    const token = request.params._meta?.progressToken;
    let progress = 0;
    const context: McpToolContext = {
      accountId,
      signal: extra.signal,
      async progress(message) {
        if (token === undefined || extra.signal.aborted) return;
        progress += 1;
        // A notification the client can no longer receive changes nothing for the call.
        await extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress, message } })
          .catch(() => {});
      },
    };
    try {
      return await tool.call(args, context);
    } catch (error) {
      // The client went away: nobody reads an answer, and its abort is no failure of the tool.
      if (extra.signal.aborted) throw error;
      return toolErrorResult(name, error, log);
    }
  });
  if (resources) {
    server.setRequestHandler(ListResourcesRequestSchema, (request) =>
      answering('resources/list', log, () => resources.list(request.params?.cursor)),
    );
    server.setRequestHandler(ReadResourceRequestSchema, (request) =>
      answering('resources/read', log, () => resources.read(request.params.uri)),
    );
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  }
  return server;
}
