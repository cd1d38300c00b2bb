import { describeSchemaIssues, FathomError, type SchemaIssue } from '@fathom/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * The one error handler: every failure leaves as `{error: {message, type, param, code}}` with a status
 * that makes openai-node build the right error class. A 500 never leaks a stack trace.
 */
export function handleError(error: FastifyError | Error, request: FastifyRequest, reply: FastifyReply): void {
  if (reply.sent || reply.raw.headersSent) {
    request.log.error({ err: error }, 'error after the response started');
    return;
  }
  if (error instanceof FathomError) {
    if (error.status >= 500) request.log.warn({ err: error }, error.message);
    reply.status(error.status).send(error.toJSON());
    return;
  }
  const fastifyError = error as FastifyError & { validation?: SchemaIssue[] };
  if (fastifyError.validation) {
    const { message, param } = describeSchemaIssues(fastifyError.validation);
    reply.status(400).send({ error: { message, type: 'invalid_request_error', param, code: 'invalid_request_error' } });
    return;
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const code =
      fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
        ? 'unsupported_media_type'
        : fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE'
          ? 'request_too_large'
          : 'invalid_request_error';
    const message =
      fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
        ? `We could not parse the JSON body of your request: ${error.message}`
        : error.message;
    reply.status(status).send({ error: { message, type: 'invalid_request_error', param: null, code } });
    return;
  }
  request.log.error({ err: error }, 'unhandled error');
  reply.status(500).send({
    error: { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: 'server_error' },
  });
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  reply.status(404).send({
    error: {
      message: `Invalid URL (${request.method} ${request.url.split('?')[0]})`,
      type: 'invalid_request_error',
      param: null,
      code: 'not_found',
    },
  });
}
