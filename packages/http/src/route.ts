import {
  checkPermission,
  InvalidRequestError,
  withCallContext,
  type Account,
  type CallContext,
  type Fathom,
  type PermissionLevel,
  type ResourceFamily,
  type SqlClient,
} from '@fathom/core';
import type { Static, TSchema } from '@fathom/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { authenticateAccount, authenticateAdmin } from './auth';
import { runInRequest } from './observe-requests';
import type { FromSchema } from './schema-types';

export type RouteMethod = 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';

/** Who may call a route: an account key (the default), the admin key, or anyone. */
export type RouteAuth = 'account' | 'admin' | 'none';

/** The name one path segment binds: `:thread_id` binds `thread_id`, a `*` wildcard binds `*`. */
type ParamName<Segment> = Segment extends `:${infer Name}` ? Name : Segment extends '*' ? '*' : never;

/** Every parameter name of a path template, e.g. `'thread_id' | 'run_id'` for `/v1/threads/:thread_id/runs/:run_id`. */
export type ParamNames<Path> = Path extends `${infer Segment}/${infer Rest}` ? ParamName<Segment> | ParamNames<Rest> : ParamName<Path>;

/** The path parameters of a template: the router matched each one, so each is a string. */
export type PathParams<Path extends string> = { readonly [Name in ParamNames<Path>]: string };

/** A query string as fastify parses it: a name given several times has a list of values. */
export type QueryValues = { readonly [name: string]: string | string[] | undefined };

/** A JSON object body: the router refuses any other body, and gives `{}` when there is none. */
export type JsonObject = { [key: string]: unknown };

/** The value a schema admits: TypeBox's static type, or (routes not yet declared with TypeBox) read from a literal JSON Schema. */
type Validated<S> = S extends TSchema ? Static<S> : FromSchema<S>;

/** The body a handler receives: typed from `schema.body` when the route has one (fastify checked it). */
export type RouteBody<Schema> = Schema extends { readonly body: infer Body } ? Validated<Body> : JsonObject;

/** The query a handler receives: typed from `schema.querystring` when the route has one. */
export type RouteQuery<Schema> = Schema extends { readonly querystring: infer Query } ? Validated<Query> : QueryValues;

/**
 * What a route declares about its request and answer. `body` and `querystring` are validated by fastify
 * before the handler runs (a query string is coerced to the schema's types: `limit=5` is the integer 5);
 * `response` is the answer of a successful call: it is not used to serialize (handlers return objects
 * as core builds them) but documents the route in `/v1/openapi.json`, and the test suite checks every
 * answer against it. `stream` names the schema of the events of a server-sent-event answer.
 */
export interface RouteSchema {
  body?: unknown;
  querystring?: unknown;
  params?: unknown;
  response?: TSchema;
  stream?: TSchema;
  /** The fields of a multipart/form-data body (uploads), which the route reads itself: documentation only. */
  form?: TSchema;
  /**
   * The JSON body as the OpenAPI document shows it, where core checks the body against data the router
   * cannot know beforehand (a data tool's input against its catalog entry): documentation only.
   */
  documentedBody?: TSchema;
}

/**
 * What a handler receives: the parsed request and the Fathom instance, plus the caller's account on
 * `auth: 'account'` routes only (admin and public routes have no account to read).
 */
export type RouteContext<Path extends string = string, Schema = RouteSchema, Auth extends RouteAuth = 'account'> = {
  request: FastifyRequest;
  reply: FastifyReply;
  fathom: Fathom;
  params: PathParams<Path>;
  body: RouteBody<Schema>;
  query: RouteQuery<Schema>;
} & ([Auth] extends ['account'] ? { account: Account } : unknown);

/** A route as written in a route table; `defineRoute` turns it into a `Route`. */
export interface RouteDefinition<Path extends string, Schema extends RouteSchema, Auth extends RouteAuth> {
  method: RouteMethod;
  /** A fastify path: `:name` segments become `params.name`, a trailing `*` becomes `params['*']`. */
  path: Path;
  /** Reads a multipart/form-data body itself (uploads); every other route takes JSON only. */
  multipart?: boolean;
  /** Who may call it; default `account`. */
  auth?: Auth;
  /** Validated once by fastify before the handler runs; `body` and `querystring` type the handler's context. */
  schema?: Schema;
  /** One line for the OpenAPI document. */
  summary?: string;
  /** The OpenAPI `operationId`; default derived from the method and path. */
  operationId?: string;
  /**
   * The answer is not JSON: a file's bytes (`application/octet-stream`), plain text (`text/plain`, e.g. the
   * Prometheus exposition), or a server-sent-event stream when `schema.stream` is set; `empty` for a route
   * whose success has no body (or that never succeeds: its refusals are OpenAI's error envelope, as on every route).
   */
  produces?: 'json' | 'bytes' | 'text' | 'empty';
  /** The OpenAPI tag (the route family, e.g. `Vector stores`); set by the route tables. */
  tag?: string;
  /** The resource family a key's `permissions` govern this route by (set by the route tables from the path). */
  family?: ResourceFamily | 'admin' | 'public';
  /** A Fathom operation with no OpenAI counterpart (agents, data tools, admin…); set by the route tables. */
  extension?: boolean;
  /** Status of a successful answer; default 200. */
  status?: number;
  /** Largest request body in bytes (413 above it); default the route family's limit, see `route-tables.ts`. */
  bodyLimit?: number;
  /** Return the JSON body, or `undefined` after writing to `reply` yourself (streams, binary). */
  handler: (context: RouteContext<Path, Schema, Auth>) => unknown;
}

/** What the router hands a route for one request. */
export interface RouteRequest {
  request: FastifyRequest;
  reply: FastifyReply;
  fathom: Fathom;
}

/** A route as data: validation from `schema` happens once in the router, `handle` calls the handler. */
export interface Route extends Omit<RouteDefinition<string, RouteSchema, RouteAuth>, 'handler'> {
  /** Runs the handler with its context; the answer as `handler` returns it. */
  handle: (request: RouteRequest) => unknown;
}

/**
 * A route whose handler sees its path parameters, body and query typed from `path` and `schema`, and
 * `account` only when the route authenticates an account.
 */
export function defineRoute<
  const Path extends string,
  const Schema extends RouteSchema = Record<never, never>,
  Auth extends RouteAuth = 'account',
>(definition: RouteDefinition<Path, Schema, Auth>): Route {
  const { handler, ...rest } = definition;
  return {
    ...rest,
    handle: ({ request, reply, fathom }) => {
      const context = {
        request,
        reply,
        fathom,
        account: request.account,
        body: request.body ?? {},
        params: request.params ?? {},
        query: request.query ?? {},
      };
      // The one place the types are taken on trust, because the router guarantees them before a handler
      // runs: fastify matched every path parameter and checked `schema`; `preValidation` below lets only
      // a JSON object through as body; `onRequest` set `request.account` on `auth: 'account'` routes.
      return handler(context as unknown as RouteContext<Path, Schema, Auth>);
    },
  };
}

/**
 * Registers routes. The key is checked in `onRequest`, the first hook: before the body is read, parsed
 * or validated, so a caller without a valid key gets 401 whatever the body (multipart and streaming
 * routes included), and an unauthenticated body is never parsed.
 */
export function registerRoutes(app: FastifyInstance, fathom: Fathom, routes: readonly Route[]): void {
  for (const route of routes) {
    const auth = route.auth ?? 'account';
    // fastify validates the request parts; the answer schemas are documentation and test checks, not serializers.
    const { response: _response, stream: _stream, form: _form, documentedBody: _documented, ...requestSchema } = route.schema ?? {};
    app.route({
      method: route.method,
      url: route.path,
      schema: requestSchema,
      config: { fathomRoute: route },
      ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
      onRequest: async (request, reply) => {
        if (auth === 'account') {
          request.account = await authenticateAccount(fathom, request);
          // A key with `permissions` reaches only the families (and levels) it lists.
          const family = route.family;
          if (request.apiKey && family && family !== 'admin' && family !== 'public') {
            checkPermission(request.apiKey, family, levelNeeded(route));
          }
          // A key with rpm_limit or tpm_limit: counted across processes; every answer carries the x-ratelimit-* headers.
          const key = request.apiKey;
          if (key && (key.rpm_limit !== null || key.tpm_limit !== null)) {
            for (const [name, value] of Object.entries(await fathom.rateLimits.admit(key))) reply.raw.setHeader(name, value);
          }
        } else if (auth === 'admin') authenticateAdmin(fathom, request);
      },
      // A body, when there is one, is a JSON object on every route (multipart uploads are read by their
      // route and leave `body` unset): arrays, strings, numbers, null and text bodies answer 400 here.
      preValidation: async (request) => {
        if (!route.multipart && request.isMultipart()) {
          throw new InvalidRequestError(
            'This route takes a JSON body (application/json), not multipart/form-data.',
            null,
            'unsupported_media_type',
          );
        }
        const body = request.body;
        if (body !== undefined && (body === null || typeof body !== 'object' || Array.isArray(body) || Buffer.isBuffer(body))) {
          throw new InvalidRequestError('The request body must be a JSON object.', null, 'invalid_request_error');
        }
        // No body is an empty object (the SDK sends none to cancel a run): its schema then names what is missing.
        if (body === undefined && route.schema?.body !== undefined && !route.multipart) request.body = {};
        if (route.schema?.querystring !== undefined) foldObjectQuery(request.query as Record<string, unknown>, route.schema.querystring);
      },
      handler: async (request, reply) => {
        // Every model call made while serving the request (streams included) is charged under its id and key.
        const result = await runInRequest(request, () =>
          withCallContext(callContextOf(fathom, request, route), () => route.handle({ request, reply, fathom })),
        );
        if (reply.sent || reply.raw.headersSent) return reply;
        if (route.status) reply.status(route.status);
        return result;
      },
    });
  }
}

/** The permission a route needs: `read` for GET and for searches (a POST that changes nothing), else `write`. */
export function levelNeeded(route: Pick<Route, 'method' | 'path'>): PermissionLevel {
  return route.method === 'GET' || route.path.endsWith('/search') ? 'read' : 'write';
}

/** The request id (the client's `x-request-id` when it sent a usable one), key and API family of a request. */
function callContextOf(fathom: Fathom, request: FastifyRequest, route: Route): CallContext {
  // `request.id` is the id every answer and log line carries (the caller's `x-request-id` when acceptable: see request-id.ts).
  const requestId = String(request.id);
  const family = route.family === 'admin' || route.family === 'public' ? undefined : route.family;
  const key = request.apiKey;
  return {
    requestId,
    api: family,
    keyId: key?.id,
    models: key?.models ?? undefined,
    ...(key && key.tpm_limit !== null
      ? { countTokens: (tokens: number, tx?: SqlClient) => fathom.rateLimits.addTokens(key.id, tokens, tx) }
      : {}),
  };
}

/**
 * `metadata[key]=value` pairs, the way the SDK writes an object into a query string (fastify keeps such
 * names as they are), become `metadata: {key: value}` for each query property the route declares as an
 * object, so its schema validates them and the handler receives the object.
 */
function foldObjectQuery(query: Record<string, unknown>, schema: unknown): void {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  for (const name of Object.keys(query)) {
    const [, property, key] = /^([^[\]]+)\[([^\]]+)\]$/.exec(name) ?? [];
    if (property === undefined || key === undefined || !Object.hasOwn(properties, property) || properties[property]?.type !== 'object')
      continue;
    const target = query[property] ?? Object.create(null);
    if (typeof target !== 'object' || target === null || Array.isArray(target)) continue;
    (target as Record<string, unknown>)[key] = query[name];
    query[property] = target;
    delete query[name];
  }
}
