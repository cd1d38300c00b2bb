import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/** The header that carries a request's id, in both directions (OpenAI's name; openai-node reads it as `_request_id`). */
export const REQUEST_ID_HEADER = 'x-request-id';

/** An id a client or proxy may hand us: printable, no spaces, short enough for a log line and a column. */
const ACCEPTED_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** W3C trace context: `version-traceid-parentid-flags`, with an all-zero trace id invalid. */
const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The id of a request, in OpenAI's `req_…` format: the caller's `x-request-id` when it sent a usable one
 * (a gateway in front keeps its id end to end), else `req_<trace id>` of a W3C `traceparent` (so the id
 * and the trace are one lookup), else `req_` and 32 random hex digits.
 */
export function requestIdOf(headers: IncomingHttpHeaders): string {
  const given = headers[REQUEST_ID_HEADER];
  if (typeof given === 'string' && ACCEPTED_ID.test(given)) return given;
  const traceparent = headers.traceparent;
  if (typeof traceparent === 'string') {
    const traceId = TRACEPARENT.exec(traceparent.trim())?.[1];
    if (traceId && traceId !== '0'.repeat(32)) return `req_${traceId}`;
  }
  return newRequestId();
}

/** A fresh `req_` id (answers the server writes before any request object exists, e.g. an unparsable head). */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}
