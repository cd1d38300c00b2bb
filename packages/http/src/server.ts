import multipart from '@fastify/multipart';
import type { Fathom } from '@fathom/core';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { BODY_LIMITS, MAX_UPLOAD_BYTES } from './body-limits';
import { registerConsole } from './console';
import { handleError, handleNotFound, NO_SNIFF, openAiError } from './errors';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-body';
import { checkAnswers } from './answer-check';
import { registerRoutes } from './route';
import { openApiRoutes } from './routes/openapi';
import { routeTables } from './route-tables';
import { compileValidator } from './validators';

export { MAX_UPLOAD_BYTES } from './body-limits';

/**
 * Longest path parameter (an id) the router matches. Node refuses request heads over 16 KiB by default,
 * so every id a client can send reaches its route: authenticated first, then answered 404 like any
 * unknown id. A longer one (only with a raised header limit) answers 404 from `frameworkErrors`.
 */
const MAX_PARAM_LENGTH = 16 * 1024;

export interface CreateServerOptions {
  /** `platform`: everything but agents; `agents`: the agent service; `all` (default): both on one port. */
  surface?: 'all' | 'platform' | 'agents';
  /** Fastify logger option; default off (the CLI turns it on). */
  logger?: FastifyServerOptions['logger'];
  /** Build directory of the console served at /console/; default `packages/console/dist`; false = no console. */
  consoleDir?: string | false;
  /**
   * Check every JSON answer against its route's declared schema and answer 500 on a mismatch (the test
   * suite turns this on, so every answer it sees is checked against `/v1/openapi.json`); default false.
   */
  checkAnswers?: boolean;
}

/**
 * Answers a request node's HTTP parser refused (oversized head, malformed request line, timeout) in
 * OpenAI's error shape, then closes the connection as node does.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const status = error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : error.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
  const message =
    status === 408
      ? 'The request took too long to arrive.'
      : status === 431
        ? 'The request line and headers are larger than the server accepts (16 KiB).'
        : 'The server could not parse this HTTP request.';
  const body = JSON.stringify(openAiError(message, status === 431 ? 'request_header_fields_too_large' : 'bad_request'));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\n` +
        `${NO_SNIFF[0]}: ${NO_SNIFF[1]}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/** Builds the HTTP server over a Fathom instance. Routes only parse, authenticate, call core, serialize. */
export async function createServer(fathom: Fathom, options: CreateServerOptions = {}): Promise<FastifyInstance> {
  const surface = options.surface ?? 'all';
  const app = Fastify({
    logger: options.logger ?? false,
    // Each route family sets its own limit (route-tables.ts); this one covers anything else.
    bodyLimit: BODY_LIMITS.default,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    forceCloseConnections: true,
    frameworkErrors: handleError,
    clientErrorHandler: answerClientError,
  });
  // An empty body sent as application/json (common for DELETE and bodiless POSTs such as cancel) means no body.
  // A body nested deeper than MAX_JSON_DEPTH is refused here, before any validator or handler recurses into it.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if ((body as string).trim() === '') return done(null, undefined);
    parseJson(request, body as string, (error, value) => {
      if (error) return done(error, undefined);
      if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
        return done(
          Object.assign(new Error(`The JSON body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`), { statusCode: 400 }),
          undefined,
        );
      }
      done(null, value);
    });
  });
  app.setValidatorCompiler(compileValidator);
  // Every answer forbids MIME sniffing: set on the raw response before any hook or handler runs, so answers
  // written past fastify (server-sent events, hijacked replies) carry it too; errors raised before routing
  // get it from the error handler.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.raw.setHeader(...NO_SNIFF);
    done();
  });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(handleNotFound);
  // Busboy truncates an oversized file and flags it; the files route checks the flag and answers 413.
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10 } });

  if (options.checkAnswers) checkAnswers(app);
  const routes = routeTables(surface);
  registerRoutes(app, fathom, [...routes, ...openApiRoutes(routes)]);
  app.get('/health', async () => ({ status: 'ok' }));
  if (surface !== 'agents' && options.consoleDir !== false) registerConsole(app, options.consoleDir);
  return app;
}
