import { type Static, type StringOptions, type TSchema, type TString, type TUnsafe, Type, type SchemaOptions } from '@sinclair/typebox';

/**
 * Schema builders on top of TypeBox for what OpenAI's wire format needs and TypeBox spells poorly for a
 * validator's error messages: nullable fields, string enums and tagged unions. Each yields plain JSON
 * Schema (what fastify's ajv validates and the OpenAPI document shows) and its static type.
 */

/**
 * `T | null`, written as a type list (`type: ['string', 'null']`, and `null` among the values of an
 * `enum`) when `T` has one `type`, so an error names one expectation; a titled schema (a named component
 * of the OpenAPI document) or a `const` stays whole, in an `anyOf` with null.
 */
export function Nullable<T extends TSchema>(schema: T): TUnsafe<Static<T> | null> {
  const { type, title, enum: values, const: constant } = schema as { type?: unknown; title?: unknown; enum?: unknown; const?: unknown };
  if (typeof type === 'string' && title === undefined && constant === undefined) {
    return Type.Unsafe<Static<T> | null>({
      ...schema,
      type: [type, 'null'],
      ...(Array.isArray(values) ? { enum: [...values, null] } : {}),
    });
  }
  return Type.Unsafe<Static<T> | null>({ anyOf: [schema, { type: 'null' }] });
}

/** A string that is one of `values` (`{type: 'string', enum}`; TypeBox's literal unions give anyOf of consts). */
export function StringEnum<const Values extends readonly string[]>(values: Values, options: SchemaOptions = {}): TUnsafe<Values[number]> {
  return Type.Unsafe<Values[number]>({ ...options, type: 'string', enum: [...values] });
}

/**
 * One of several object shapes told apart by a tag property, e.g. tools by `type`. Validated with ajv's
 * `discriminator` keyword: only the branch the tag names is checked, so its errors name the real field,
 * and an unknown tag is one clear error. Each branch must declare the tag as a required const or enum.
 */
export function TaggedUnion<const Branches extends readonly TSchema[]>(
  tag: string,
  branches: Branches,
  options: SchemaOptions = {},
): TUnsafe<Static<Branches[number]>> {
  return Type.Unsafe<Static<Branches[number]>>({
    ...options,
    type: 'object',
    required: [tag],
    discriminator: { propertyName: tag },
    oneOf: [...branches],
  });
}

/** A property that may be absent or `null` (OpenAI's schema allows `null` wherever a field is optional); read `null` as absent. */
export function OptionalNullable<T extends TSchema>(schema: T) {
  return Type.Optional(Nullable(schema));
}

/**
 * A field of OpenAI's format that Fathom does not offer (`{not: {}}`: any value is refused, with a 400
 * `unsupported_parameter` naming the field and saying what to do instead). Its static type is `never`,
 * so typed callers cannot send it either.
 */
export function Unsupported(instead: string): TUnsafe<never> {
  return Type.Unsafe<never>({ not: {}, description: instead });
}

/**
 * The pattern of a string that holds something besides white space. `describeSchemaIssues` words a
 * failure of exactly this pattern as "expected a non-blank string" (code `empty_string`).
 */
export const NON_BLANK_PATTERN = '\\S';

/** A string with at least one character that is not white space (a name, a path, a description a model reads). */
export function NonBlankString(options: StringOptions = {}): TString {
  return Type.String({ ...options, pattern: NON_BLANK_PATTERN });
}
