import type { Fathom } from '@fathom/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
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
 * id (pino's `request_id` binding), method, route template, status, duration and account. Bodies are
 * logged only with `FATHOM_LOG_BODIES`; headers (the bearer key) never are.
 */
export function observeRequests(app: FastifyInstance, fathom: Fathom): void {
  const { metrics } = fathom;
  const logBodies = fathom.config.logBodies;
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = routeOf(request);
    const status = reply.statusCode;
    metrics.httpRequests.inc({ method: request.method, route, status: String(status) });
    metrics.httpDuration.observe({ method: request.method, route }, reply.elapsedTime / 1000);
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
  if (logBodies && request.body !== undefined) line.body = request.body;
  return line;
}
