import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Most bytes of a request body the server reads and throws away after answering early (a body over
 * the route's limit, a refused key, an upload that failed half-way). 64 MiB: twice the largest body
 * limit, so any client sending a body a route might plausibly take gets the answer.
 */
export const DISCARD_LIMIT = 64 * 1024 * 1024;

/**
 * Called before an error answer is sent: if the request body has not been read to its end, the rest is
 * read and discarded (never buffered), and the connection stays open. A client still sending — the
 * openai SDK (undici) always sends its whole body before it reads — then finishes and reads the answer,
 * instead of meeting a connection closed under its feet (a reset, reported as `APIConnectionError`), and
 * a kept-alive connection is never left with unread bytes that stall the next request on it. A body
 * declared larger than `DISCARD_LIMIT` is not read: the answer asks to close the connection; one that
 * grows past it unannounced (chunked) has its connection destroyed once it does.
 */
export function discardUnreadBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.readableEnded || raw.destroyed) return;
  if (Number(raw.headers['content-length']) > DISCARD_LIMIT) {
    reply.header('connection', 'close');
    return;
  }
  // fastify asks to close the connection after a body it refused; reading the rest makes that unnecessary.
  reply.removeHeader('connection');
  let discarded = 0;
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT) raw.socket.destroy();
  });
  raw.resume();
}
