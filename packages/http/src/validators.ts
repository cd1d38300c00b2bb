import { describeSchemaIssues, InvalidRequestError, type SchemaIssue, type Static, type TSchema } from '@fathom/core';
import type { FastifySchemaCompiler } from 'fastify';
import { Ajv, type Options, type ValidateFunction } from 'ajv';

/**
 * The validators of request parts. Bodies are JSON and are checked as they are (no coercion: `"5"` is
 * not a number); a query string has only strings, so it is coerced to its schema's types (`limit=5` is
 * the integer 5, `include=a` is `['a']` where a list is expected). Every error is reported at once
 * (the bodies' sizes and the schemas' `maxItems` bound the work), with the schema beside it so an error
 * message can say what was expected.
 */
const COMMON: Options = {
  allErrors: true,
  verbose: true,
  removeAdditional: false,
  useDefaults: true,
  discriminator: true,
  allowUnionTypes: true,
  // Schemas compiled for routes are not registered by `$id` (several routes share schema objects).
  addUsedSchema: false,
};

const bodies = new Ajv({ ...COMMON, coerceTypes: false });
const queries = new Ajv({ ...COMMON, coerceTypes: 'array' });

/**
 * fastify's validator compiler: queries coerce, everything else is checked strictly. A route's validator
 * is compiled by its first request, not at start: compiling the schemas of every route took ~1.5 s of CPU
 * before a restarted server listened (docs/decisions/2026-11-25-fast-restart.md).
 */
export const compileValidator: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  let compiled: ValidateFunction | undefined;
  const validate = (data: unknown): boolean => {
    compiled ??= (httpPart === 'querystring' ? queries : bodies).compile(schema as object);
    const valid = compiled(data);
    // fastify reads the errors of a failed validation from the function it was given.
    validate.errors = compiled.errors;
    return valid as boolean;
  };
  validate.errors = null as ValidateFunction['errors'];
  return validate;
};

/** A strict validator for answers (the test suite's check of every answer against its route's schema). */
export const answers = new Ajv({ ...COMMON, coerceTypes: false, useDefaults: false });

const compiledChecks = { strict: new WeakMap<object, ValidateFunction>(), coerced: new WeakMap<object, ValidateFunction>() };

/**
 * Checks a value the router does not validate (the fields of a multipart upload, a CLI's arguments)
 * against its declared schema: a mismatch is a 400 naming the field, worded as the router's. With
 * `coerce`, strings are read as a query string's are (`'7200'` is the integer 7200).
 */
export function checkValue<T extends TSchema>(schema: T, value: unknown, options: { coerce?: boolean } = {}): Static<T> {
  const cache = options.coerce ? compiledChecks.coerced : compiledChecks.strict;
  let validate = cache.get(schema);
  if (!validate) {
    validate = (options.coerce ? queries : bodies).compile(schema);
    cache.set(schema, validate);
  }
  if (validate(value)) return value as Static<T>;
  const { message, param, code } = describeSchemaIssues((validate.errors ?? []) as SchemaIssue[]);
  throw new InvalidRequestError(message, param, code);
}
