import { describeSchemaIssues, ErrorEnvelope, type SchemaIssue } from '@fathom/core';
import type { ValidateFunction } from 'ajv';
import type { FastifyInstance } from 'fastify';
import type { Route } from './route';
import { answers } from './validators';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route as declared (set by `registerRoutes`), for hooks that read its schemas. */
    fathomRoute?: Route;
  }
}

const compiled = new WeakMap<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = answers.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/**
 * Checks every JSON answer against its route's declared schema (`schema.response` for a success, OpenAI's
 * error envelope for a failure) and turns a mismatch into a 500 that names the route and the fields, so a
 * test that makes the call fails on the spot. For the test suite, which thereby checks that every answer
 * it sees is what `/v1/openapi.json` promises; a production server does not pay for it.
 */
export function checkAnswers(app: FastifyInstance): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const route = request.routeOptions.config.fathomRoute;
    if (!route || typeof payload !== 'string' || !String(reply.getHeader('content-type') ?? '').startsWith('application/json')) {
      return payload;
    }
    const schema = reply.statusCode >= 400 ? ErrorEnvelope : route.schema?.response;
    if (!schema) return payload;
    const validate = validatorOf(schema);
    if (validate(JSON.parse(payload))) return payload;
    const { message } = describeSchemaIssues((validate.errors ?? []) as SchemaIssue[]);
    reply.status(500);
    return JSON.stringify({
      error: {
        message: `The answer of ${route.method} ${route.path} (status ${reply.statusCode}) does not match its declared schema: ${message}`,
        type: 'server_error',
        param: null,
        code: 'answer_schema_mismatch',
      },
    });
  });
}
