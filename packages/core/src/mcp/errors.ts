import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { FathomError } from '../errors';
import { EgressDeniedError, EgressRedirectError } from '../egress';

/**
 * A failure of an MCP server connection, listing or call: 502 (`mcp_server_error`: unreachable, refused,
 * answered with an error) or 504 (`mcp_timeout`). The message names the server's host and the step,
 * never a header value; it is safe to show to the model and the client.
 */
export class McpClientError extends FathomError {
  constructor(message: string, code: 'mcp_server_error' | 'mcp_timeout' = 'mcp_server_error', cause?: unknown) {
    super(message, { code, status: code === 'mcp_timeout' ? 504 : 502, cause });
  }
}

/** The egress refusal inside an error the SDK wrapped (or the error itself). */
export function egressRefusal(error: unknown): EgressDeniedError | EgressRedirectError | undefined {
  for (let current = error, depth = 0; current && depth < 5; depth++) {
    if (current instanceof EgressDeniedError || current instanceof EgressRedirectError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Strips what a server or the network said down to one short line (no stack, no request headers). */
function shortReason(error: unknown): string {
  const message =
    error instanceof McpError ? error.message.replace(/^MCP error -?\d+: /, '') : error instanceof Error ? error.message : String(error);
  const line = message.split('\n')[0]!.trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

/** An error of one step (`connect`, `tools/list`, `tools/call`) as a `McpClientError`; egress refusals pass as they are. */
export function toMcpClientError(error: unknown, server: string, step: string): Error {
  const refusal = egressRefusal(error);
  if (refusal) return refusal;
  if (error instanceof McpClientError) return error;
  return new McpClientError(`MCP server ${server}: ${step} failed: ${shortReason(error)}`, 'mcp_server_error', error);
}
