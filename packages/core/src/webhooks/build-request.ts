import { isFilled, renderBody, renderPath, renderQuery, type Arguments } from './render-template';
import type { WebhookCard, WebhookRoute } from './types';

/** A route call ready to send, or the error text to return to the model instead. */
export type BuiltRequest =
  | { ok: true; url: string; method: string; headers: Record<string, string>; body?: string }
  | { ok: false; error: string };

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/** RFC 9110 token: the characters a header name may hold. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Headers by lowercase name, so a later layer overrides an earlier one whatever its capitalisation. */
class HeaderLayers {
  private readonly byName = new Map<string, [string, string]>();
  set(name: string, value: unknown): void {
    this.byName.set(name.toLowerCase(), [name, String(value)]);
  }
  layer(headers: Record<string, unknown> | undefined): void {
    for (const [name, value] of Object.entries(headers ?? {})) if (value !== undefined && value !== null) this.set(name, value);
  }
  /** The problem of the first unsendable header: CR/LF in a value (header injection) or an invalid name. */
  problem(): string | undefined {
    for (const [name, value] of this.byName.values()) {
      if (!HEADER_NAME.test(name)) return `Error: Header name '${name.replace(/[\r\n]/g, ' ')}' is not valid`;
      if (/[\r\n\0]/.test(value)) return `Error: Header '${name}' contains a line break`;
    }
    return undefined;
  }
  toRecord(): Record<string, string> {
    return Object.fromEntries(this.byName.values());
  }
}

/** Applies `config.auth` (one setting for all routes) to the headers or the query string. */
function applyAuth(auth: Record<string, unknown> | undefined, headers: HeaderLayers, url: URL): string | undefined {
  const type = (auth?.type as string | undefined) ?? 'none';
  switch (type) {
    case 'none':
      return undefined;
    case 'bearer':
      headers.set('Authorization', `Bearer ${auth?.token ?? ''}`);
      return undefined;
    case 'api_key': {
      const name = String(auth?.apiKeyName || 'X-API-Key');
      if (auth?.apiKeyLocation === 'query') url.searchParams.set(name, String(auth?.apiKey ?? ''));
      else headers.set(name, auth?.apiKey ?? '');
      return undefined;
    }
    case 'basic':
      headers.set('Authorization', `Basic ${Buffer.from(`${auth?.username ?? ''}:${auth?.password ?? ''}`, 'utf8').toString('base64')}`);
      return undefined;
    case 'custom_header':
      if (!auth?.customHeaderName) return 'Error: custom_header authentication needs customHeaderName';
      headers.set(String(auth.customHeaderName), auth.customHeaderValue ?? '');
      return undefined;
    default:
      return `Error: unsupported authentication type '${type}'`;
  }
}

/** The position of a JSON.parse failure (V8 names it in the message; end of input otherwise). */
function jsonErrorPosition(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = /position (\d+)/.exec(message)?.[1] ?? String(text.length);
  const upTo = text.slice(0, Number(position));
  const line = upTo.split('\n').length;
  const column = Number(position) - upTo.lastIndexOf('\n');
  return `at position ${position} (line ${line}, column ${column})`;
}

/**
 * Builds the HTTP call of a route from the model's arguments, following the spec's Outbound route calls:
 * URL = baseUrl (trailing slashes removed) + path; placeholders in path, queryParams and bodyTemplate;
 * headers layered Content-Type/Accept, defaultHeaders, route headers, auth. Nothing here sends anything.
 */
export function buildRequest(card: WebhookCard, route: WebhookRoute, args: Arguments, baseUrl: string): BuiltRequest {
  const method = String(route.method ?? 'GET').toUpperCase();
  const path = renderPath(route.path ?? '', args);
  if ('missing' in path) return { ok: false, error: `Error: Missing required path parameters: ${path.missing.join(', ')}` };
  if ('dotSegment' in path) return { ok: false, error: `Error: Parameter '${path.dotSegment}' cannot be '.' or '..' in the path` };
  const joinedPath = path.path === '' || /^[/?#]/.test(path.path) ? path.path : `/${path.path}`;
  let url: URL;
  try {
    url = new URL(baseUrl.replace(/\/+$/, '') + joinedPath);
  } catch {
    return { ok: false, error: `Error: Invalid URL '${baseUrl.replace(/\/+$/, '')}${route.path ?? ''}'` };
  }
  for (const [key, value] of renderQuery(route.queryParams, args)) url.searchParams.append(key, value);

  const headers = new HeaderLayers();
  headers.set('Content-Type', 'application/json');
  headers.set('Accept', 'application/json');
  headers.layer(card.config.defaultHeaders);
  headers.layer(route.headers);
  const authError = applyAuth(card.config.auth as Record<string, unknown> | undefined, headers, url);
  if (authError) return { ok: false, error: authError };
  const headerProblem = headers.problem();
  if (headerProblem) return { ok: false, error: headerProblem };

  let body: string | undefined;
  if (BODY_METHODS.has(method)) {
    if (route.bodyTemplate !== undefined && route.bodyTemplate !== null && route.bodyTemplate !== '') {
      body = renderBody(String(route.bodyTemplate), args, route.parameters);
      try {
        JSON.parse(body);
      } catch (error) {
        return { ok: false, error: `Error: bodyTemplate produced invalid JSON ${jsonErrorPosition(body, error)}` };
      }
    } else {
      const sent = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
      body = JSON.stringify(sent);
    }
  }
  return { ok: true, url: url.href, method, headers: headers.toRecord(), body };
}

export { isFilled };
