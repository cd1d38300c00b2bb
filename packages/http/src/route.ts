import { InvalidRequestError, type Account, type Fathom } from '@fathom/core';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import { authenticateAccount, authenticateAdmin } from './auth';

/** What a handler receives: the parsed request, the caller's account, and the Fathom instance. */
export interface RouteContext {
  request: FastifyRequest;
  reply: FastifyReply;
  fathom: Fathom;
  /** The caller (undefined only for `auth: 'admin'` and `auth: 'none'`). */
  account: Account;
  body: any;
  params: Record<string, string>;
  query: Record<string, any>;
}

/** A route as data: validation from `schema` happens once in the router, the handler calls core. */
export interface Route {
  method: 'GET' | 'POST' | 'DELETE' | 'PUT' | 'PATCH';
  path: string;
  /** Reads a multipart/form-data body itself (uploads); every other route takes JSON only. */
  multipart?: boolean;
  /** Who may call it; default `account`. */
  auth?: 'account' | 'admin' | 'none';
  schema?: FastifySchema;
  /** Status of a successful answer; default 200. */
  status?: number;
  /** Largest request body in bytes (413 above it); default the route family's limit, see `route-tables.ts`. */
  bodyLimit?: number;
  /** Return the JSON body, or `undefined` after writing to `reply` yourself (streams, binary). */
  handler: (context: RouteContext) => unknown | Promise<unknown>;
}

/**
 * Registers routes. The key is checked in `onRequest`, the first hook: before the body is read, parsed
 * or validated, so a caller without a valid key gets 401 whatever the body (multipart and streaming
 * routes included), and an unauthenticated body is never parsed.
 */
export function registerRoutes(app: FastifyInstance, fathom: Fathom, routes: readonly Route[]): void {
  for (const route of routes) {
    const auth = route.auth ?? 'account';
    app.route({
      method: route.method,
      url: route.path,
      schema: route.schema,
      ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
      onRequest: async (request) => {
        if (auth === 'account') request.account = await authenticateAccount(fathom, request);
        else if (auth === 'admin') authenticateAdmin(fathom, request);
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
      },
      handler: async (request, reply) => {
        const result = await route.handler({
          request,
          reply,
          fathom,
          account: request.account as Account,
          body: request.body ?? {},
          params: (request.params ?? {}) as Record<string, string>,
          query: (request.query ?? {}) as Record<string, any>,
        });
        if (reply.sent || reply.raw.headersSent) return reply;
        if (route.status) reply.status(route.status);
        return result;
      },
    });
  }
}
