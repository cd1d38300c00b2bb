/** An MCP server the operator declares by name in `FATHOM_MCP_SERVERS`: remote (a URL) or local (a command over stdio). */
export type McpServerConfig =
  | { url: string; headers?: Record<string, string> }
  | { command: string; args?: string[]; env?: Record<string, string> };

function isStringRecord(value: unknown): value is Record<string, string> {
  return !!value && typeof value === 'object' && !Array.isArray(value) && Object.values(value).every((entry) => typeof entry === 'string');
}

/**
 * Reads `FATHOM_MCP_SERVERS`: a JSON object of label -> `{url, headers?}` (Streamable HTTP, or the older
 * HTTP+SSE transport) or `{command, args?, env?}` (a process spoken to over stdio). Only the operator
 * can declare a stdio server; API input can only name one by label. A bad entry stops start-up with a
 * message naming the variable and the label (never a header value).
 */
export function parseMcpServers(env: Record<string, string | undefined>): Record<string, McpServerConfig> {
  const raw = env.FATHOM_MCP_SERVERS;
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new Error(`FATHOM_MCP_SERVERS is not valid JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('FATHOM_MCP_SERVERS must be a JSON object: label -> {url, headers?} or {command, args?, env?}.');
  }
  const servers: Record<string, McpServerConfig> = {};
  for (const [label, value] of Object.entries(parsed as Record<string, unknown>)) {
    const where = `FATHOM_MCP_SERVERS["${label}"]`;
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(label)) throw new Error(`${where}: a label is 1-64 letters, digits, '_' or '-'.`);
    const entry = (value && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, unknown>;
    if (typeof entry.url === 'string') {
      let url: URL;
      try {
        url = new URL(entry.url);
      } catch {
        throw new Error(`${where}.url must be an http:// or https:// URL.`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${where}.url must be an http:// or https:// URL.`);
      if (entry.headers !== undefined && !isStringRecord(entry.headers)) throw new Error(`${where}.headers must be an object of strings.`);
      servers[label] = { url: entry.url, ...(entry.headers ? { headers: { ...entry.headers } } : {}) };
    } else if (typeof entry.command === 'string' && entry.command.trim() !== '') {
      const { args, env: childEnv } = entry;
      if (args !== undefined && !(Array.isArray(args) && args.every((arg) => typeof arg === 'string'))) {
        throw new Error(`${where}.args must be an array of strings.`);
      }
      if (childEnv !== undefined && !isStringRecord(childEnv)) throw new Error(`${where}.env must be an object of strings.`);
      servers[label] = { command: entry.command, ...(args ? { args: [...args] } : {}), ...(childEnv ? { env: { ...childEnv } } : {}) };
    } else {
      throw new Error(`${where} needs a url string ({url, headers?}) or a command string ({command, args?, env?}).`);
    }
  }
  return servers;
}
