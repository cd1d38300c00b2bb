import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../internal/field-limits';
import { Nullable, StringEnum } from './builders';

/**
 * Shapes every capability's wire format shares: metadata, list queries and pages, deleted objects, the
 * error envelope. Limits are OpenAI's; lengths count Unicode code points (ajv's `maxLength`).
 */

/** `metadata`: at most 16 string pairs, keys up to 64 characters, values up to 512. */
export const Metadata = Type.Record(
  Type.String({ maxLength: FIELD_LIMITS.metadataKey }),
  Type.String({ maxLength: FIELD_LIMITS.metadataValue }),
  {
    maxProperties: FIELD_LIMITS.metadataKeys,
    // A record's key schema only types the keys (TypeBox writes `patternProperties`): the length is checked here.
    propertyNames: { maxLength: FIELD_LIMITS.metadataKey },
    description: `Up to ${FIELD_LIMITS.metadataKeys} key-value pairs: keys up to ${FIELD_LIMITS.metadataKey} characters, values strings up to ${FIELD_LIMITS.metadataValue} characters.`,
  },
);
export type Metadata = Static<typeof Metadata>;

/** `order` of a list: by creation time. */
export const ListOrder = StringEnum(['asc', 'desc']);

/** The query of every list route (`limit` 1..`maxLimit`, default 20; `order`, default desc; cursors). */
export function ListQuery<const Extra extends Record<string, TSchema> = Record<never, never>>(extra?: Extra, maxLimit = 100) {
  return Type.Object({
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: maxLimit, description: `Page size, 1 to ${maxLimit} (default 20).` })),
    order: Type.Optional(ListOrder),
    after: Type.Optional(Type.String({ description: 'An object id: the page starts after it.' })),
    before: Type.Optional(Type.String({ description: 'An object id: the page ends before it.' })),
    ...((extra ?? {}) as Extra),
  });
}
export type ListQueryParams = Static<ReturnType<typeof ListQuery>>;

/** `{object: 'list', data, first_id, last_id, has_more}`. */
export function ListPage<T extends TSchema>(item: T) {
  return Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    first_id: Nullable(Type.String()),
    last_id: Nullable(Type.String()),
    has_more: Type.Boolean(),
  });
}

/** The answer of a DELETE: `{id, object: '<name>.deleted', deleted: true}`. */
export function Deleted<const Name extends string>(object: Name) {
  return Type.Object({ id: Type.String(), object: Type.Literal(object), deleted: Type.Boolean() });
}

/** OpenAI's error envelope, the body of every 4xx and 5xx answer. */
export const ErrorEnvelope = Type.Object({
  error: Type.Object({
    message: Type.String(),
    type: Type.String(),
    param: Nullable(Type.String()),
    code: Nullable(Type.String()),
  }),
});
export type ErrorEnvelope = Static<typeof ErrorEnvelope>;
