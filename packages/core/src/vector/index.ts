export * from './types';
export { vectorSchema } from './vector-schema';
export { VectorIndex, type VectorIndexOptions } from './vector-index';
export { matchesAttributeFilter, validateAttributeFilter } from './attribute-filter';
export { PgVectorIndex, type PgVectorIndexOptions } from './pg-vector-index';
