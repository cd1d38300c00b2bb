import { InvalidRequestError } from '../errors';

/** Servers one request may name (`mcp` tools). */
export const MAX_MCP_SERVERS = 8;

/** A tool filter: names, and/or only tools the server annotates `readOnlyHint: true`. */
export interface McpToolFilter {
  toolNames?: string[];
  readOnly?: boolean;
}

/** One `{type: "mcp"}` tool of a request. `headers` hold the secrets: never stored, echoed or logged. */
export interface McpToolSettings {
  /** Where the tool is in the request, e.g. `tools[2]`. */
  at: string;
  serverLabel: string;
  /** The request's `server_url`; absent when the label names an operator server (`FATHOM_MCP_SERVERS`). */
  serverUrl?: string;
  serverDescription?: string;
  /** `headers` plus `authorization` as `Authorization: Bearer …`. */
  headers: Record<string, string>;
  /** On a stored copy (a background response's row): the request had headers, left out (`withoutMcpSecrets`). */
  withheldHeaders?: boolean;
  /** Absent: every tool of the server. */
  allowedTools?: McpToolFilter;
  /** `always` / `never` as rules: a tool needs approval unless `never` matches it and `always` does not. */
  approval: { always?: McpToolFilter; never?: McpToolFilter };
}

/** `tool_choice: {type: "mcp", server_label, name?}` (OpenAI's `ToolChoiceMcp`): call that tool, or one of that server's tools. */
export interface McpToolChoice {
  serverLabel: string;
  name?: string;
}

function fail(param: string, message: string, code = 'invalid_request_error'): never {
  throw new InvalidRequestError(message, param, code);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readFilter(value: unknown, where: string): McpToolFilter {
  if (Array.isArray(value)) value = { tool_names: value };
  if (!isObject(value)) fail(where, `Invalid '${where}': expected an array of tool names or {tool_names, read_only}.`);
  const names = value.tool_names ?? undefined;
  if (names !== undefined && !(Array.isArray(names) && names.every((name) => typeof name === 'string'))) {
    fail(`${where}.tool_names`, `Invalid '${where}.tool_names': expected an array of strings.`);
  }
  const readOnly = value.read_only ?? undefined;
  if (readOnly !== undefined && typeof readOnly !== 'boolean')
    fail(`${where}.read_only`, `Invalid '${where}.read_only': expected a boolean.`);
  return { ...(names ? { toolNames: names as string[] } : {}), ...(readOnly !== undefined ? { readOnly } : {}) };
}

function readApproval(value: unknown, where: string): McpToolSettings['approval'] {
  if (value === undefined || value === null || value === 'always') return { always: {} };
  if (value === 'never') return { never: {} };
  if (!isObject(value)) fail(where, `Invalid '${where}': expected 'always', 'never' or {always, never}.`);
  return {
    ...(value.always != null ? { always: readFilter(value.always, `${where}.always`) } : {}),
    ...(value.never != null ? { never: readFilter(value.never, `${where}.never`) } : {}),
  };
}

/**
 * Reads one `{type: "mcp"}` tool (each error names its field). `connector_id` and `tunnel_id` (OpenAI's
 * hosted connectors) are refused; a tool without `server_url` must name an operator server by label.
 */
export function readMcpTool(
  tool: Record<string, unknown>,
  where: string,
  operatorLabels: ReadonlySet<string> | undefined,
): McpToolSettings {
  for (const key of ['connector_id', 'tunnel_id']) {
    if (tool[key] !== undefined && tool[key] !== null) {
      fail(
        `${where}.${key}`,
        `Unsupported parameter: '${where}.${key}'. Fathom connects to MCP servers by 'server_url'.`,
        'unsupported_parameter',
      );
    }
  }
  const label = tool.server_label;
  if (typeof label !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(label)) {
    fail(`${where}.server_label`, `Invalid '${where}.server_label': expected 1-64 letters, digits, '_' or '-'.`);
  }
  const url = tool.server_url ?? undefined;
  if (url !== undefined) {
    let parsed: URL | undefined;
    try {
      parsed = typeof url === 'string' ? new URL(url) : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
      fail(`${where}.server_url`, `Invalid '${where}.server_url': expected an http:// or https:// URL.`);
    }
  } else if (!operatorLabels?.has(label)) {
    fail(
      `${where}.server_url`,
      `Missing required parameter: '${where}.server_url' ('${label}' is not a server configured on this installation).`,
    );
  }
  const headers: Record<string, string> = {};
  const rawHeaders = tool.headers ?? undefined;
  if (rawHeaders !== undefined) {
    if (!isObject(rawHeaders) || !Object.values(rawHeaders).every((value) => typeof value === 'string')) {
      fail(`${where}.headers`, `Invalid '${where}.headers': expected an object of strings.`);
    }
    Object.assign(headers, rawHeaders);
  }
  const authorization = tool.authorization ?? undefined;
  if (authorization !== undefined) {
    if (typeof authorization !== 'string') fail(`${where}.authorization`, `Invalid '${where}.authorization': expected a string.`);
    for (const name of Object.keys(headers)) if (name.toLowerCase() === 'authorization') delete headers[name];
    headers.Authorization = `Bearer ${authorization}`;
  }
  const description = tool.server_description ?? undefined;
  if (description !== undefined && typeof description !== 'string') {
    fail(`${where}.server_description`, `Invalid '${where}.server_description': expected a string.`);
  }
  const allowed = tool.allowed_tools ?? undefined;
  return {
    at: where,
    serverLabel: label,
    ...(url !== undefined ? { serverUrl: url as string } : {}),
    ...(description ? { serverDescription: description } : {}),
    headers,
    ...(allowed !== undefined ? { allowedTools: readFilter(allowed, `${where}.allowed_tools`) } : {}),
    approval: readApproval(tool.require_approval, `${where}.require_approval`),
  };
}

/** The tool as the response object echoes it and stores it: no `headers`, no `authorization`. */
export function echoMcpTool(tool: Record<string, unknown>): Record<string, unknown> {
  const { headers: _headers, authorization: _authorization, ...rest } = tool;
  return rest;
}

function matches(filter: McpToolFilter, name: string, readOnly: boolean): boolean {
  if (filter.toolNames && !filter.toolNames.includes(name)) return false;
  if (filter.readOnly !== undefined && filter.readOnly !== readOnly) return false;
  return true;
}

/** Whether the request lets the model see this tool (`allowed_tools`). */
export function isToolAllowed(settings: McpToolSettings, name: string, readOnly: boolean): boolean {
  return !settings.allowedTools || matches(settings.allowedTools, name, readOnly);
}

/** Whether a call of this tool needs the client's approval (`require_approval`; default `always`). */
export function needsApproval(settings: McpToolSettings, name: string, readOnly: boolean): boolean {
  const { always, never } = settings.approval;
  if (always && matches(always, name, readOnly)) return true;
  if (never && matches(never, name, readOnly)) return false;
  return true;
}
