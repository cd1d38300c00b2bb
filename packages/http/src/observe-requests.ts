import { type Fathom, tracer, withRequestId } from '@fathom/core';
import { context, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { answeredErrorCode } from './errors';
import { REQUEST_ID_HEADER } from './request-id';

/** The route label of a request no route matched (a 404), so a scan of random URLs makes one series, not one per URL. */
const UNMATCHED = 'unmatched';

/** The route template a request matched (`/v1/vector_stores/:id/search`), never the raw URL with its ids. */
export function routeOf(request: FastifyRequest): string {
  if (request.is404) return UNMATCHED;
  return request.routeOptions.url ?? UNMATCHED;
}

/**
 * Every answer carries `x-request-id` (set on the raw response before any hook or handler runs, so
 * server-sent events and hijacked replies carry it too), and every finished request is counted in
 * `fathom_http_requests_total` / `fathom_http_request_duration_seconds` and logged as one line: request
 * id (pino's `request_id` binding), method, route template, status, duration, account and key id. Bodies are
 * logged only with `FATHOM_LOG_BODIES`; headers (the bearer key) never are. An error answer to an account's
 * key is counted for that account by day, status and code (`GET /v1/usage/errors`).
 */
export function observeRequests(app: FastifyInstance, fathom: Fathom): void {
  const { metrics } = fathom;
  const logBodies = fathom.config.logBodies;
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    if (tracer.enabled) startRequestSpan(request, reply);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    const status = reply.statusCode;
    metrics.httpRequests.inc({ method: request.method, route, status: String(status) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    // The account's error counts (the console's errors chart): answers to a known key only.
    if (status >= 400 && request.account) fathom.usage.recordError(request.account.id, status, answeredErrorCode(request) ?? null);
    request.log.info(requestLine(request, reply, route, logBodies), 'request');
    done();
  });
}

/** The fields of a request's log line. */
function requestLine(request: FastifyRequest, reply: FastifyReply, route: string, logBodies: boolean): Record<string, unknown> {
  const line: Record<string, unknown> = {
    method: request.method,
    route,
    status: reply.statusCode,
    duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
  };
  if (request.account) line.account_id = request.account.id;
  if (request.apiKey) line.key_id = request.apiKey.id;
  if (logBodies && request.body !== undefined) line.body = request.body;
  return line;
}

/** The server span of each request being traced. */
const spans = new WeakMap<FastifyRequest, Span>();

/**
 * A server span per request (HTTP semantic conventions), child of the caller's `traceparent` when it sent
 * one; ended when the connection is done with the answer (finished, or the client went away mid-stream).
 */
function startRequestSpan(request: FastifyRequest, reply: FastifyReply): void {
  const route = routeOf(request);
  const parent = propagation.extract(ROOT_CONTEXT, request.headers);
  const span = tracer.get().startSpan(
    `${request.method} ${route}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': request.method,
        'http.route': route,
        'url.path': request.url.split('?')[0]!,
        'url.scheme': 'http',
        'fathom.request_id': request.id,
      },
    },
    parent,
  );
  spans.set(request, span);
  reply.raw.once('close', () => {
    const status = reply.raw.statusCode;
    span.setAttribute('http.response.status_code', status);
    if (request.account) span.setAttribute('fathom.account_id', request.account.id);
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    span.end();
  });
}

/**
 * Runs a route's handler as the work of its request: core sees the request id (log lines, stored
 * objects) and, when tracing, every span it starts is a child of the request's span.
 */
export function runInRequest<T>(request: FastifyRequest, fn: () => T): T {
  const span = spans.get(request);
  const run = () => withRequestId(request.id, fn);
  return span ? context.with(trace.setSpan(ROOT_CONTEXT, span), run) : run();
}
