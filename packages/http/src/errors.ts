import { describeSchemaIssues, FathomError, isStorageFull, type SchemaIssue } from '@fathom/core';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { discardUnreadBody } from './unread-body';

/** The header every answer carries: browsers must not guess a type other than the one declared. */
export const NO_SNIFF = ['x-content-type-options', 'nosniff'] as const;

/** The error object inside OpenAI's envelope `{error: {...}}`. */
export interface OpenAiErrorObject {
  message: string;
  type: string;
  param: string | null;
  code: string;
}

/** OpenAI's error envelope for a client error. */
export function openAiError(message: string, code: string, param: string | null = null): { error: OpenAiErrorObject } {
  return { error: { message, type: 'invalid_request_error', param, code } };
}

const INTERNAL: OpenAiErrorObject = {
  message: 'The server had an error while processing your request.',
  type: 'server_error',
  param: null,
  code: 'server_error',
};

/** A write refused because the disk or the database is full: the client may retry later, nothing was kept. */
const STORAGE_FULL: OpenAiErrorObject = {
  message: 'The server has no storage space left for this request; try again later.',
  type: 'server_error',
  param: null,
  code: 'insufficient_storage',
};

/**
 * The status and error object of a failure raised by core: a FathomError says what it is; anything
 * else is an internal error whose message (SQL, stack, paths) is never shown. The one place error
 * objects are built, for answers and for errors inside streams alike.
 */
export function errorObjectOf(error: unknown): { status: number; error: OpenAiErrorObject } {
  if (error instanceof FathomError) return { status: error.status, error: error.toJSON().error };
  if (isStorageFull(error)) return { status: 507, error: STORAGE_FULL };
  return { status: 500, error: INTERNAL };
}

/** `1048576` -> `1 MiB`, `65536` -> `64 KiB`: how 413 messages and docs/api.md state body limits. */
export function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/** Status, code and message for errors fastify and its plugins raise before a handler runs. */
function describeFrameworkError(error: FastifyError, request: FastifyRequest): { status: number; code: string; message: string } | null {
  const where = `${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`;
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 413,
        code: 'request_too_large',
        message: `The request body is larger than the ${formatBytes(request.routeOptions?.bodyLimit ?? 0)} this endpoint accepts.`,
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, code: 'unsupported_media_type', message: error.message };
    case 'FST_ERR_BAD_URL':
      return { status: 400, code: 'invalid_url', message: `Invalid URL (${where}): it holds a malformed percent-encoded sequence.` };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 404, code: 'not_found', message: `Invalid URL (${where.slice(0, 120)}…): a path segment is too long to be an id.` };
    // Multipart bodies (POST /v1/files) the parser cannot read.
    case 'FST_MP_PREMATURE_CLOSE':
      return { status: 400, code: 'invalid_request_error', message: 'The multipart/form-data body ended before its closing boundary.' };
    case 'FST_FILES_LIMIT':
      return { status: 400, code: 'invalid_request_error', message: "Send one file, in the part named 'file'." };
    case 'FST_FIELDS_LIMIT':
    case 'FST_PARTS_LIMIT':
      return { status: 400, code: 'invalid_request_error', message: 'The multipart/form-data body has too many parts.' };
    default:
      return null;
  }
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
  // Errors raised before routing (a malformed URL) skip the onRequest hooks that set these.
  reply.header(...NO_SNIFF);
  reply.header('x-request-id', request.id);
  // An answer sent before the body was read (413, 401, a failed upload) must still reach the client.
  discardUnreadBody(request, reply);
  if (error instanceof FathomError) {
    if (error.status >= 500) request.log.warn({ err: error }, error.message);
    const { status, error: body } = errorObjectOf(error);
    if (error.headers) reply.headers(error.headers);
    sendError(request, reply, status, body);
    return;
  }
  const fastifyError = error as FastifyError & { validation?: SchemaIssue[] };
  if (fastifyError.validation) {
    const { message, param, code } = describeSchemaIssues(fastifyError.validation);
    sendError(request, reply, 400, openAiError(message, code, param).error);
    return;
  }
  const known = describeFrameworkError(fastifyError, request);
  if (known) {
    sendError(request, reply, known.status, openAiError(known.message, known.code).error);
    return;
  }
  const status = fastifyError.statusCode;
  if (status && status >= 400 && status < 500) {
    const message =
      fastifyError.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError
        ? `We could not parse the JSON body of your request: ${error.message}`
        : error.message;
    sendError(request, reply, status, openAiError(message, 'invalid_request_error').error);
    return;
  }
  const internal = errorObjectOf(error);
  if (internal.status === 507) request.log.warn({ err: error }, 'storage full');
  else request.log.error({ err: error }, 'unhandled error');
  sendError(request, reply, internal.status, internal.error);
}

export function handleNotFound(request: FastifyRequest, reply: FastifyReply): void {
  discardUnreadBody(request, reply);
  sendError(
    request,
    reply,
    404,
    openAiError(`Invalid URL (${request.method} ${request.url.split('?')[0]!.slice(0, 200)})`, 'not_found').error,
  );
}

/** The `code` of the error each request was answered with, for the account's error counts (`GET /v1/usage/errors`). */
const answeredCodes = new WeakMap<FastifyRequest, string>();

/** The `code` of the error envelope `request` was answered with; undefined when it got none from the error handler. */
export function answeredErrorCode(request: FastifyRequest): string | undefined {
  return answeredCodes.get(request);
}

function sendError(request: FastifyRequest, reply: FastifyReply, status: number, error: OpenAiErrorObject): void {
  answeredCodes.set(request, error.code);
  reply.status(status).send({ error });
}
