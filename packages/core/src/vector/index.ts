export * from './types';
export { vectorSchema } from './vector-schema';
export { VectorIndex, type VectorIndexOptions } from './vector-index';
export { matchesAttributeFilter, validateAttributeFilter } from './attribute-filter';
export { citationMarker, CITATION_MARKER, CITATION_INSTRUCTIONS } from './citation-markers';
export { PgVectorIndex, type PgVectorIndexOptions } from './pg-vector-index';
export { openVectorIndex, type OpenVectorIndexOptions } from './open-vector-index';
