// The wire format's building blocks: TypeBox (JSON Schema with static types) and the shapes every capability shares.
export { type Static, type TSchema, Type } from '@sinclair/typebox';
export { NON_BLANK_PATTERN, NonBlankString, Nullable, OptionalNullable, StringEnum, TaggedUnion, Unsupported } from './builders';
export { compileCheck, type SchemaCheck } from './check';
export { Deleted, ErrorEnvelope, ListOrder, ListPage, ListQuery, type ListQueryParams, Metadata } from './common';
