import type { Logger as Pino } from 'pino';
import type { Logger } from '../internal/logger';
import { currentRequestId } from './request-context';

/**
 * Core's `Logger` over a pino logger (the server's): each call is one JSON line at its level, an `Error`
 * among the arguments goes under `err` (pino's serializer keeps its message, type and stack), any other
 * argument under `detail`, and the id of the request being served under `request_id`. Background work logs
 * through this, so its lines share the server's format.
 */
export function pinoLogger(pino: Pino): Logger {
  const write =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, ...rest: unknown[]) => {
      const err = rest.find((value) => value instanceof Error);
      const detail = rest.filter((value) => value !== err);
      const fields: Record<string, unknown> = {};
      const requestId = currentRequestId();
      if (requestId) fields.request_id = requestId;
      if (err) fields.err = err;
      if (detail.length === 1) fields.detail = detail[0];
      else if (detail.length > 1) fields.detail = detail;
      pino[level](fields, message);
    };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}
