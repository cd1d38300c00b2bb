import { Type, type TUnsafe } from '@sinclair/typebox';
import { StringEnum, TaggedUnion } from '../../wire';
import type { AttributeFilter } from '../types';

// The branches carry no `title`: inside the recursive schema (a resource of its own, `$id` AttributeFilter)
// a hoisted `#/components/...` reference would resolve against that resource, not the OpenAPI document.

/** A comparison of one attribute with one value: `eq ne gt gte lt lte` (`value` a string, number or boolean). */
const ComparisonFilter = Type.Object({
  type: StringEnum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']),
  key: Type.String({ minLength: 1, description: 'The attribute to compare.' }),
  value: Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] }),
});

/** A set comparison: `in`, `nin` (`value` an array of strings or numbers). */
const SetComparisonFilter = Type.Object({
  type: StringEnum(['in', 'nin']),
  key: Type.String({ minLength: 1, description: 'The attribute to compare.' }),
  value: Type.Array(Type.Unsafe<string | number>({ type: ['string', 'number'] })),
});

/**
 * `filters` of a search (OpenAI's `ComparisonFilter | CompoundFilter`): comparisons of file attributes,
 * combined with `and`/`or` to any depth (a request body nests at most 128 levels). Told apart by `type`,
 * so an error names the field of the one shape the filter claims to be (`filters.filters[1].value`).
 *
 * Recursive (`$ref` to its own `$id`) rather than unrolled to a fixed depth: ajv generates a
 * discriminator's branch once per tag value, so an unrolled compound branch (`and`, `or`) doubles at
 * every level (5 levels: 4.9 MB of validator code and seconds to compile at every start); the
 * recursive schema compiles once, in a function that calls itself.
 */
export const AttributeFilterParam: TUnsafe<AttributeFilter> = Type.Unsafe<AttributeFilter>(
  Type.Recursive(
    (This) =>
      TaggedUnion('type', [
        ComparisonFilter,
        SetComparisonFilter,
        Type.Object({ type: StringEnum(['and', 'or']), filters: Type.Array(This) }),
      ]),
    {
      $id: 'AttributeFilter',
      title: 'AttributeFilter',
      description: "A comparison filter (`eq ne gt gte lt lte in nin`), or an 'and'/'or' of filters.",
    },
  ),
);
