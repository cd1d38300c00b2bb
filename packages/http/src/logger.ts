import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';

export interface ServerLoggerOptions {
  /** `LOG_LEVEL`: trace, debug, info (default), warn, error, fatal or silent. */
  level?: string;
  /** Human-readable lines instead of JSON; default: when stdout is a terminal. */
  pretty?: boolean;
  /** Where lines go; default stdout. */
  destination?: NodeJS.WritableStream;
}

/**
 * The server's pino logger: JSON lines (one per request, one per background job outcome) for a log
 * pipeline, or pino-pretty's colored lines when a person watches a terminal. pino-pretty runs as a
 * stream in this thread, not a transport worker: a terminal is not where throughput matters.
 */
export function createServerLogger(options: ServerLoggerOptions = {}): Logger {
  const level = options.level ?? process.env.LOG_LEVEL ?? 'info';
  const destination = options.destination ?? process.stdout;
  const wantsPretty = options.pretty ?? (destination === process.stdout && process.stdout.isTTY === true);
  const settings = { level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime };
  if (wantsPretty) return pino(settings, pretty({ colorize: true, destination, ignore: 'pid', translateTime: 'SYS:HH:MM:ss.l' }));
  return pino(settings, destination);
}
