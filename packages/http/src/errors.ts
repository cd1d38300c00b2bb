import { FathomError } from '@fathom/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, any>;
  message?: string;
}

/** Turns one ajv issue into an OpenAI-style sentence naming the field. */
function describeIssue(issue: ValidationIssue): { message: string; param: string } {
  const base = issue.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const join = (name: string) => (base ? `${base}.${name}` : name);
  switch (issue.keyword) {
    case 'required':
      return { message: `Missing required parameter: '${join(issue.params.missingProperty)}'.`, param: join(issue.params.missingProperty) };
    case 'additionalProperties':
      return {
        message: `Unrecognized request argument supplied: '${join(issue.params.additionalProperty)}'.`,
        param: join(issue.params.additionalProperty),
      };
    case 'enum':
      return {
        message: `Invalid value for '${base}': expected one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`,
        param: base,
      };
    default:
      return { message: `Invalid '${base || 'body'}': ${issue.message ?? issue.keyword}.`, param: base };
  }
}

/** Formats a list of ajv issues as one 400 message naming each field (deduplicated). */
export function formatValidationIssues(issues: ValidationIssue[]): { message: string; param: string | null } {
  const described = issues
    .filter((issue) => !['anyOf', 'oneOf', 'if'].includes(issue.keyword) || issues.length === 1)
    .map(describeIssue);
  const messages = [...new Set(described.map((d) => d.message))];
  return { message: messages.join(' '), param: described[0]?.param || null };
}

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
  const fastifyError = error as FastifyError & { validation?: ValidationIssue[] };
  if (fastifyError.validation) {
    const { message, param } = formatValidationIssues(fastifyError.validation);
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
