import { ErrorEnvelope } from '@fathom/core';
import type { Route } from './route';

/** A JSON Schema or OpenAPI fragment, as plain JSON. */
type Json = { [key: string]: unknown };

/** `/v1/threads/:thread_id/runs` -> `/v1/threads/{thread_id}/runs`; a trailing `*` becomes `{path}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}');
}

/** The path parameter names of a route, in order. */
function pathParameters(path: string): string[] {
  return [...openApiPath(path).matchAll(/\{([A-Za-z0-9_]+)\}/g)].map((match) => match[1]!);
}

/** `POST /v1/vector_stores/:id/files` -> `post_v1_vector_stores_id_files`, when a route names no `operationId`. */
export function operationIdOf(route: Pick<Route, 'method' | 'path' | 'operationId'>): string {
  if (route.operationId) return route.operationId;
  const words = route.path
    .replace(/[:*{}]/g, '')
    .split(/[/.]/)
    .filter(Boolean);
  return [route.method.toLowerCase(), ...words].join('_').replace(/[^A-Za-z0-9_]/g, '_');
}

/**
 * Moves every sub-schema with a `title` into `components.schemas` (by that title) and leaves a `$ref`
 * in its place, so the objects routes share (VectorStore, Response…) are declared once in the document.
 * Two different schemas with one title are a programming error.
 */
class Components {
  readonly schemas: Record<string, Json> = {};
  private readonly texts = new Map<string, string>();

  hoist(schema: unknown): unknown {
    if (Array.isArray(schema)) return schema.map((item) => this.hoist(item));
    if (schema === null || typeof schema !== 'object') return schema;
    const copy: Json = {};
    for (const [key, value] of Object.entries(schema)) copy[key] = this.hoist(value);
    const title = copy.title;
    if (typeof title !== 'string') return copy;
    const text = JSON.stringify(copy);
    const known = this.texts.get(title);
    if (known === undefined) {
      this.texts.set(title, text);
      this.schemas[title] = copy;
    } else if (known !== text) {
      throw new Error(`Two different schemas are titled '${title}'; give one of them another title.`);
    }
    return { $ref: `#/components/schemas/${title}` };
  }
}

/** What a document says about itself. */
export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

/** Query parameters of a route from its querystring schema (each property one parameter). */
function queryParameters(components: Components, schema: unknown): Json[] {
  const { properties = {}, required = [] } = (schema ?? {}) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(properties).map(([name, property]) => {
    const description = (property as { description?: unknown }).description;
    return {
      name,
      in: 'query',
      required: required.includes(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: components.hoist(property),
    };
  });
}

function jsonContent(components: Components, schema: unknown, mediaType = 'application/json'): Json {
  return { content: { [mediaType]: { schema: components.hoist(schema) } } };
}

/** The success answer of a route: JSON, a file's bytes, or a stream of server-sent events. */
function successAnswer(components: Components, route: Route): Json {
  if (route.produces === 'bytes') {
    return {
      description: 'The bytes of the file.',
      content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } },
    };
  }
  const answer: Json = { description: route.summary ?? 'OK' };
  const content: Json = {};
  if (route.schema?.response) content['application/json'] = { schema: components.hoist(route.schema.response) };
  if (route.schema?.stream) content['text/event-stream'] = { schema: components.hoist(route.schema.stream) };
  if (Object.keys(content).length) answer.content = content;
  return answer;
}

/**
 * The OpenAPI 3.1 document of a server's routes, generated from the same declarations fastify validates
 * with: path parameters from the path, query parameters and bodies from `schema`, the success answer
 * from `schema.response` (or `stream`), every error as OpenAI's envelope. Fathom's own operations (those
 * OpenAI has no counterpart for) carry `x-fathom-extension: true`.
 */
export function openApiDocument(routes: readonly Route[], info: OpenApiInfo): Json {
  const components = new Components();
  const error = components.hoist({ ...ErrorEnvelope, title: 'Error' });
  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) {
    const path = openApiPath(route.path);
    const auth = route.auth ?? 'account';
    const parameters = [
      ...pathParameters(route.path).map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...queryParameters(components, route.schema?.querystring),
    ];
    const operation: Json = {
      operationId: operationIdOf(route),
      ...(route.summary ? { summary: route.summary } : {}),
      ...(route.tag ? { tags: [route.tag] } : {}),
      ...(parameters.length ? { parameters } : {}),
      security: auth === 'none' ? [] : [{ [auth === 'admin' ? 'AdminKey' : 'ApiKey']: [] }],
      responses: {
        [String(route.status ?? 200)]: successAnswer(components, route),
        default: { description: "An error, in OpenAI's envelope.", content: { 'application/json': { schema: error } } },
      },
      ...(route.extension ? { 'x-fathom-extension': true } : {}),
    };
    if (route.schema?.form)
      operation.requestBody = { required: true, ...jsonContent(components, route.schema.form, 'multipart/form-data') };
    else if (route.schema?.documentedBody || route.schema?.body) {
      operation.requestBody = { required: true, ...jsonContent(components, route.schema.documentedBody ?? route.schema.body) };
    }
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = operation;
  }
  return {
    openapi: '3.1.0',
    info,
    servers: [{ url: '/' }],
    security: [{ ApiKey: [] }],
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'http', scheme: 'bearer', description: 'An account API key (`fth_…`).' },
        AdminKey: { type: 'http', scheme: 'bearer', description: 'The admin key (`FATHOM_ADMIN_KEY`).' },
      },
      schemas: components.schemas,
    },
  };
}
