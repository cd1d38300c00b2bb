import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorObjectOf, type OpenAiErrorObject } from './errors';

/** One server-sent event: `event: <name>` (optional) and `data: <json or raw string>`. */
export interface SseEvent {
  event?: string;
  data: unknown;
}

/** Encodes one event; string data is sent raw (e.g. `[DONE]`), everything else as JSON; a plain string is the data of an event. */
export function encodeSse(event: SseEvent | string): string {
  if (typeof event === 'string') return `data: ${event}\n\n`;
  const data = typeof event.data === 'string' ? event.data : JSON.stringify(event.data);
  return `${event.event ? `event: ${event.event}\n` : ''}data: ${data}\n\n`;
}

/**
 * Streams events to the client. The returned AbortSignal fires when the client goes away, so the
 * producer (e.g. an upstream model call) can be aborted. Errors thrown by the producer after the
 * stream started are sent as an `error` event, then the stream ends.
 */
export async function sendSse(
  request: FastifyRequest,
  reply: FastifyReply,
  produce: (signal: AbortSignal) => AsyncIterable<SseEvent | string>,
  options: {
    /** How this API sends an error inside its stream; default `event: error` with `{error}`. */
    errorEvent?: (error: OpenAiErrorObject) => SseEvent;
    /** The last event of a stream the producer completed (e.g. chat completions' `data: [DONE]`). */
    end?: SseEvent | string;
  } = {},
): Promise<void> {
  const controller = new AbortController();
  const onClose = () => {
    if (!reply.raw.writableFinished) controller.abort();
  };
  reply.raw.on('close', onClose);
  reply.hijack();
  // Writes made in one tick (headers, events, the end) leave in one syscall: cork until the next tick.
  const corkForTick = () => {
    if (reply.raw.writableCorked) return;
    reply.raw.cork();
    process.nextTick(() => reply.raw.uncork());
  };
  corkForTick();
  reply.raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  reply.raw.flushHeaders?.();
  try {
    for await (const event of produce(controller.signal)) {
      if (controller.signal.aborted) break;
      corkForTick();
      const ok = reply.raw.write(encodeSse(event));
      if (!ok) await new Promise<void>((resolve) => reply.raw.once('drain', resolve).once('close', resolve));
    }
    if (options.end !== undefined && !controller.signal.aborted) {
      corkForTick();
      reply.raw.write(encodeSse(options.end));
    }
  } catch (error) {
    if (!controller.signal.aborted) {
      if (errorObjectOf(error).status >= 500) request.log.error({ err: error }, 'error inside a stream');
      const { error: body } = errorObjectOf(error);
      reply.raw.write(encodeSse(options.errorEvent ? options.errorEvent(body) : { event: 'error', data: { error: body } }));
    }
  } finally {
    reply.raw.off('close', onClose);
    if (!reply.raw.writableEnded) {
      corkForTick();
      reply.raw.end();
    }
  }
}
