/**
 * Types computed from the JSON Schemas the routes hand to fastify, so a handler sees the shape the
 * validator has already checked. Only the keywords the route schemas use are read: `type` (one name or
 * a list), `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `const` and
 * `anyOf`. Anything else (`minLength`, `pattern`, `minimum`…) narrows values, not types, and is ignored;
 * a schema without a `type` this understands is `unknown`. An object keeps `unknown` for the properties
 * its schema does not list (the validator lets them through), unless it sets `additionalProperties: false`.
 */

/** The TypeScript type of data that passed validation against the JSON Schema `S` (a literal type). */
export type FromSchema<S> = S extends { readonly enum: readonly (infer Value)[] }
  ? Value
  : S extends { readonly const: infer Value }
    ? Value
    : S extends { readonly anyOf: readonly (infer Branch)[] }
      ? FromSchema<Branch>
      : S extends { readonly type: infer Names }
        ? FromTypeName<Names extends readonly (infer Name)[] ? Name : Names, S>
        : unknown;

/** One `type` name of `S` (distributes over a list of names, e.g. `['string', 'null']`). */
type FromTypeName<Name, S> = Name extends 'string'
  ? string
  : Name extends 'number' | 'integer'
    ? number
    : Name extends 'boolean'
      ? boolean
      : Name extends 'null'
        ? null
        : Name extends 'array'
          ? S extends { readonly items: infer Item }
            ? FromSchema<Item>[]
            : unknown[]
          : Name extends 'object'
            ? FromObjectSchema<S>
            : unknown;

type PropertiesOf<S> = S extends { readonly properties: infer Properties } ? Properties : Record<never, never>;
type RequiredOf<S> = S extends { readonly required: readonly (infer Name)[] } ? Name & string : never;
/** Unlisted properties pass validation unless the schema forbids them. */
type AdditionalOf<S> = S extends { readonly additionalProperties: false } ? unknown : { [key: string]: unknown };

/** Flattens an intersection into one object type (readable in editor hovers and error messages). */
type Flatten<T> = { [K in keyof T]: T[K] };

type FromObjectSchema<S, Properties = PropertiesOf<S>, Required extends string = RequiredOf<S>> = Flatten<
  { [K in keyof Properties & Required]: FromSchema<Properties[K]> } & {
    [K in Exclude<keyof Properties, Required>]?: FromSchema<Properties[K]>;
  } & { [K in Exclude<Required, keyof Properties>]: unknown } & AdditionalOf<S>
>;
