import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { VectorStoreSearchParams } from '../documents/wire/search';
import { VectorStoreFileCreateParams } from '../documents/wire/vector-store-files';
import { VectorStoreCreateParams } from '../documents/wire/vector-stores';
import { NonBlankString, OptionalNullable, StringEnum, Type, Unsupported } from '../wire';
import { describeSchemaIssues, type SchemaIssue } from './describe-schema-issues';

// The options the HTTP server validates bodies with (packages/http/src/validators.ts).
const ajv = new Ajv({
  allErrors: true,
  verbose: true,
  discriminator: true,
  allowUnionTypes: true,
  coerceTypes: false,
  addUsedSchema: false,
});
const validate = ajv.compile(VectorStoreCreateParams);

function errorOf(body: unknown) {
  expect(validate(body)).toBe(false);
  return describeSchemaIssues(validate.errors as SchemaIssue[]);
}

describe('describeSchemaIssues over TypeBox schemas', () => {
  it('accepts a valid body, nulls included, and code points up to the limit', () => {
    expect(validate({ name: null, expires_after: null, chunking_strategy: { type: 'auto' }, metadata: { k: '😀'.repeat(512) } })).toBe(
      true,
    );
  });

  it('names a nullable field with one expectation', () => {
    expect(errorOf({ name: 5 })).toEqual({
      message: "Invalid type for 'name': expected a string or null.",
      param: 'name',
      code: 'invalid_type',
    });
  });

  it('reports the inner field of a nullable object instead of the union', () => {
    expect(errorOf({ expires_after: { anchor: 'last_active_at', days: 0 } })).toMatchObject({
      message: "Invalid 'expires_after.days': expected an integer between 1 and 365.",
      param: 'expires_after.days',
    });
    expect(errorOf({ expires_after: 'soon' })).toMatchObject({
      message: "Invalid type for 'expires_after': expected an object or null.",
      param: 'expires_after',
    });
  });

  it('names the tag of a tagged union and the values it takes, or the branch field', () => {
    expect(errorOf({ chunking_strategy: { type: 'bogus' } })).toMatchObject({
      message: "Invalid value for 'chunking_strategy.type': 'bogus'. Supported values are: 'auto', 'static'.",
      param: 'chunking_strategy.type',
    });
    expect(errorOf({ chunking_strategy: {} })).toMatchObject({
      message: "Missing required parameter: 'chunking_strategy.type'.",
      code: 'missing_required_parameter',
    });
    expect(
      errorOf({ chunking_strategy: { type: 'static', static: { max_chunk_size_tokens: 50, chunk_overlap_tokens: 0 } } }),
    ).toMatchObject({
      message: "Invalid 'chunking_strategy.static.max_chunk_size_tokens': expected an integer between 100 and 4096.",
      param: 'chunking_strategy.static.max_chunk_size_tokens',
    });
  });

  it('words length limits as OpenAI does, counting code points', () => {
    expect(errorOf({ name: 'x'.repeat(257) })).toEqual({
      message: "Invalid 'name': string too long. Expected a string with maximum length 256, but got a string with length 257 instead.",
      param: 'name',
      code: 'string_above_max_length',
    });
    expect(errorOf({ metadata: { k: '😀'.repeat(513) } })).toMatchObject({ param: 'metadata.k', code: 'string_above_max_length' });
    expect(errorOf({ file_ids: Array.from({ length: 501 }, (_, i) => `file-${i}`) })).toMatchObject({
      param: 'file_ids',
      code: 'array_above_max_length',
    });
    expect(errorOf({ metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) })).toMatchObject({
      message: "Invalid 'metadata': at most 16 keys are allowed.",
      param: 'metadata',
    });
  });

  it('words the range of a nullable integer and a field Fathom does not offer', () => {
    const check = ajv.compile(
      Type.Object({
        budget: OptionalNullable(Type.Integer({ minimum: 256 })),
        legacy: Type.Optional(Unsupported('Use the new field instead.')),
      }),
    );
    expect(check({ budget: 100, legacy: 1 })).toBe(false);
    expect(describeSchemaIssues(check.errors as SchemaIssue[])).toEqual({
      message: "Invalid 'budget': expected an integer >= 256. Unsupported parameter: 'legacy'. Use the new field instead.",
      param: 'budget',
      code: 'invalid_value',
    });
    expect(check({ legacy: null })).toBe(false);
    expect(describeSchemaIssues(check.errors as SchemaIssue[])).toMatchObject({ param: 'legacy', code: 'unsupported_parameter' });
  });

  it('names a key too long for its object once, as a key', () => {
    const validateAttributes = ajv.compile(VectorStoreFileCreateParams);
    expect(validateAttributes({ file_id: 'file-1', attributes: { ['k'.repeat(65)]: 1 } })).toBe(false);
    expect(describeSchemaIssues(validateAttributes.errors as SchemaIssue[])).toEqual({
      message: `Invalid 'attributes': key too long. Expected keys with maximum length 64, but got '${'k'.repeat(20)}…' with length 65 instead.`,
      param: 'attributes',
      code: 'string_above_max_length',
    });
    expect(errorOf({ metadata: { ['m'.repeat(65)]: 'v' } })).toMatchObject({ param: 'metadata', code: 'string_above_max_length' });
  });

  it('reports the field inside a recursive schema, not the nullable union around it', () => {
    const validateSearch = ajv.compile(VectorStoreSearchParams);
    const nested = { type: 'and', filters: [{ type: 'or', filters: [{ type: 'in', key: 'team', value: 'red' }] }] };
    expect(validateSearch({ query: 'x', filters: nested })).toBe(false);
    expect(describeSchemaIssues(validateSearch.errors as SchemaIssue[])).toEqual({
      message: "Invalid type for 'filters.filters[0].filters[0].value': expected an array.",
      param: 'filters.filters[0].filters[0].value',
      code: 'invalid_type',
    });
    expect(validateSearch({ query: 'x', filters: { type: 'and', filters: [{ type: 'like', key: 'k', value: 1 }] } })).toBe(false);
    expect(describeSchemaIssues(validateSearch.errors as SchemaIssue[]).message).toBe(
      "Invalid value for 'filters.filters[0].type': 'like'. Supported values are: 'eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'and', 'or'.",
    );
    expect(validateSearch({ query: 'x', filters: 'team' })).toBe(false);
    expect(describeSchemaIssues(validateSearch.errors as SchemaIssue[]).message).toBe(
      "Invalid type for 'filters': expected an object or null.",
    );
  });

  it('words a range of one value as that value with its reason, and an enum that also takes null', () => {
    const check = ajv.compile(
      Type.Object({
        n: OptionalNullable(Type.Integer({ minimum: 1, maximum: 1, description: 'Fathom answers one choice per request.' })),
        format: OptionalNullable(StringEnum(['float', 'base64'])),
      }),
    );
    expect(check({ n: null, format: null })).toBe(true);
    expect(check({ n: 2, format: 'int8' })).toBe(false);
    expect(describeSchemaIssues(check.errors as SchemaIssue[])).toEqual({
      message:
        "Invalid 'n': expected 1. Fathom answers one choice per request. Invalid value for 'format': expected one of 'float', 'base64', null.",
      param: 'n',
      code: 'invalid_value',
    });
  });

  it('reports every problem of a body at once', () => {
    const { message, param } = errorOf({ name: 1, file_ids: 'x' });
    expect(message).toBe("Invalid type for 'name': expected a string or null. Invalid type for 'file_ids': expected an array.");
    expect(param).toBe('name');
  });

  it('words a blank string and a range with an exclusive bound', () => {
    const check = ajv.compile(
      Type.Object({
        name: NonBlankString({ maxLength: 8 }),
        amount: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 100 })),
      }),
    );
    expect(check({ name: ' \t\n', amount: 0 })).toBe(false);
    expect(describeSchemaIssues(check.errors as SchemaIssue[])).toEqual({
      message: "Invalid 'name': expected a non-blank string. Invalid 'amount': expected a number > 0 and <= 100.",
      param: 'name',
      code: 'empty_string',
    });
    expect(check({ name: '', amount: 101 })).toBe(false);
    expect(describeSchemaIssues(check.errors as SchemaIssue[]).message).toBe(
      "Invalid 'name': expected a non-blank string. Invalid 'amount': expected a number > 0 and <= 100.",
    );
    expect(check({ name: ' a ' })).toBe(true);
  });
});
