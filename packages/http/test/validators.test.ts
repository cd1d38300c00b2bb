import type { FastifySchema } from 'fastify';
import { describe, expect, it } from 'vitest';
import { routeTables } from '../src/route-tables';
import { compileValidator } from '../src/validators';

type Validator = ((data: unknown) => boolean) & { errors?: Array<{ instancePath: string }> | null };

const validatorOf = (schema: object, httpPart: string) =>
  compileValidator({ schema: schema as FastifySchema, httpPart, method: 'POST', url: '/v1/test' }) as Validator;

describe('route validators', () => {
  it('compile a route schema on the route’s first request, not when the server starts', () => {
    // ajv refuses this schema (strict mode: unknown keyword): the refusal comes with the first request.
    const validate = validatorOf({ type: 'object', colour: 'blue' }, 'body');
    expect(() => validate({})).toThrow(/unknown keyword/);
  });

  it('report what is wrong to fastify from the function it was given', () => {
    const validate = validatorOf({ type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] }, 'body');
    expect(validate({ n: '5' })).toBe(false);
    expect(validate.errors?.map((error) => error.instancePath)).toEqual(['/n']);
    expect(validate({ n: 5 })).toBe(true);
    expect(validate.errors).toBeNull();
  });

  it('coerce a query string to its schema’s types and check bodies strictly', () => {
    const schema = { type: 'object', properties: { limit: { type: 'integer' } } };
    const query = { limit: '5' };
    expect(validatorOf(schema, 'querystring')(query)).toBe(true);
    expect(query.limit).toBe(5);
    expect(validatorOf(schema, 'body')({ limit: '5' })).toBe(false);
  });

  it('compile for every route’s request parts (a schema ajv refuses is found here, not by a user)', () => {
    let compiled = 0;
    for (const route of routeTables('all')) {
      for (const httpPart of ['body', 'querystring', 'params'] as const) {
        const schema = route.schema?.[httpPart];
        if (!schema) continue;
        const validate = validatorOf(schema as object, httpPart);
        expect(() => validate({}), `${route.method} ${route.path} ${httpPart}`).not.toThrow();
        compiled++;
      }
    }
    expect(compiled).toBeGreaterThan(50);
  });
});
