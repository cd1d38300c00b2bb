import { InvalidRequestError } from '../errors';
import { checkJsonLength, checkLength, FIELD_LIMITS } from '../internal/field-limits';
import { newId } from '../internal/ids';
import type { StoredItem } from './items';

/** The MCP items a client may send back (from an earlier output) or send as its answer (`mcp_approval_response`). */
export const MCP_ITEM_TYPES = ['mcp_list_tools', 'mcp_call', 'mcp_approval_request', 'mcp_approval_response'];

const CALL_STATUSES = ['in_progress', 'completed', 'incomplete', 'calling', 'failed'];

function fail(param: string, message: string): never {
  throw new InvalidRequestError(message, param);
}

function text(raw: Record<string, unknown>, key: string, where: string, required: boolean, max: number): string | undefined {
  const value = raw[key] ?? undefined;
  if (value === undefined) {
    if (required) fail(`${where}.${key}`, `Missing required parameter: '${where}.${key}'.`);
    return undefined;
  }
  if (typeof value !== 'string') fail(`${where}.${key}`, `Invalid '${where}.${key}': expected a string.`);
  checkLength(value, `${where}.${key}`, max);
  return value;
}

/** One MCP input item in its stored form (only the fields OpenAI defines, each capped), naming the field on error. */
export function normalizeMcpItem(raw: Record<string, unknown>, type: string, id: string | undefined, where: string): StoredItem {
  const label = () => text(raw, 'server_label', where, true, FIELD_LIMITS.itemId)!;
  const args = () => text(raw, 'arguments', where, false, FIELD_LIMITS.arguments) ?? '';
  switch (type) {
    case 'mcp_list_tools': {
      if (!Array.isArray(raw.tools)) fail(`${where}.tools`, `Invalid '${where}.tools': expected an array.`);
      checkJsonLength(raw.tools, `${where}.tools`, FIELD_LIMITS.toolOutput);
      const error = text(raw, 'error', where, false, FIELD_LIMITS.toolOutput);
      return {
        id: id ?? fail(`${where}.id`, `Missing required parameter: '${where}.id'.`),
        type,
        server_label: label(),
        tools: raw.tools,
        error: error ?? null,
      };
    }
    case 'mcp_call': {
      const status = text(raw, 'status', where, false, 32);
      if (status !== undefined && !CALL_STATUSES.includes(status)) fail(`${where}.status`, `Invalid value for '${where}.status'.`);
      checkJsonLength(raw.error ?? null, `${where}.error`, FIELD_LIMITS.toolOutput);
      return {
        id: id ?? fail(`${where}.id`, `Missing required parameter: '${where}.id'.`),
        type,
        server_label: label(),
        name: text(raw, 'name', where, true, FIELD_LIMITS.itemId)!,
        arguments: args(),
        output: text(raw, 'output', where, false, FIELD_LIMITS.toolOutput) ?? null,
        error: raw.error ?? null,
        status: status ?? 'completed',
        approval_request_id: text(raw, 'approval_request_id', where, false, FIELD_LIMITS.itemId) ?? null,
      };
    }
    case 'mcp_approval_request':
      return {
        id: id ?? fail(`${where}.id`, `Missing required parameter: '${where}.id'.`),
        type,
        server_label: label(),
        name: text(raw, 'name', where, true, FIELD_LIMITS.itemId)!,
        arguments: args(),
      };
    default: {
      if (typeof raw.approve !== 'boolean') fail(`${where}.approve`, `Missing required parameter: '${where}.approve' (a boolean).`);
      return {
        id: id ?? newId('mcpa_'),
        type: 'mcp_approval_response',
        approval_request_id: text(raw, 'approval_request_id', where, true, FIELD_LIMITS.itemId)!,
        approve: raw.approve,
        reason: text(raw, 'reason', where, false, FIELD_LIMITS.itemId * 16) ?? null,
      };
    }
  }
}
