import { type TSchema, Type, type TUnsafe } from '@sinclair/typebox';
import { StringEnum, TaggedUnion } from '../../wire';
import type { AttributeFilter } from '../types';

/** How many levels of compound filters (`and`, `or`) may nest: `filters.filters[0].filters[0]…`. */
export const MAX_FILTER_DEPTH = 5;

/** A comparison of one attribute with one value: `eq ne gt gte lt lte` (`value` a string, number or boolean). */
export const ComparisonFilter = Type.Object(
  {
    type: StringEnum(['eq', 'ne', 'gt', 'gte', 'lt', 'lte']),
    key: Type.String({ minLength: 1, description: 'The attribute to compare.' }),
    value: Type.Unsafe<string | number | boolean>({ type: ['string', 'number', 'boolean'] }),
  },
  { title: 'ComparisonFilter' },
);

/** A set comparison: `in`, `nin` (`value` an array of strings or numbers). */
export const SetComparisonFilter = Type.Object(
  {
    type: StringEnum(['in', 'nin']),
    key: Type.String({ minLength: 1, description: 'The attribute to compare.' }),
    value: Type.Array(Type.Unsafe<string | number>({ type: ['string', 'number'] })),
  },
  { title: 'SetComparisonFilter' },
);

/** A filter with at most `levels` levels of compound filters (none: comparisons only). */
function filterOfDepth(levels: number): TSchema {
  const comparisons = [ComparisonFilter, SetComparisonFilter];
  if (levels === 0) return TaggedUnion('type', comparisons);
  const compound = Type.Object({ type: StringEnum(['and', 'or']), filters: Type.Array(filterOfDepth(levels - 1)) });
  return TaggedUnion('type', [...comparisons, compound]);
}

/**
 * `filters` of a search (OpenAI's `ComparisonFilter | CompoundFilter`): comparisons of file attributes,
 * combined with `and`/`or` up to MAX_FILTER_DEPTH levels deep. Told apart by `type`, so an error names
 * the field of the one shape the filter claims to be (`filters.filters[1].value`). The static type is
 * the recursive `AttributeFilter` the index evaluates.
 */
export const AttributeFilterParam: TUnsafe<AttributeFilter> = Type.Unsafe<AttributeFilter>({
  ...filterOfDepth(MAX_FILTER_DEPTH),
  title: 'AttributeFilter',
  description: `A comparison filter, or an 'and'/'or' of filters (nested at most ${MAX_FILTER_DEPTH} levels deep).`,
});
