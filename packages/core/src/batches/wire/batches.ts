import { type Static, Type } from '@sinclair/typebox';
import { FileExpiresAfter } from '../../documents/wire/files';
import { ListPage, ListQuery, Metadata, OptionalNullable, StringEnum } from '../../wire';

/** Endpoints a batch runs its lines against: the synchronous routes of the same names, in core. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/responses', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

/** Requests (lines) one batch holds at most, as OpenAI allows. */
export const MAX_BATCH_REQUESTS = 50_000;
/** Embedding inputs one `/v1/embeddings` batch holds at most, across its lines, as OpenAI allows. */
export const MAX_BATCH_EMBEDDING_INPUTS = 50_000;

export const BATCH_STATUSES = [
  'validating',
  'failed',
  'in_progress',
  'finalizing',
  'completed',
  'expired',
  'cancelling',
  'cancelled',
] as const;
export type BatchStatus = (typeof BATCH_STATUSES)[number];

export const BatchCreateParams = Type.Object(
  {
    input_file_id: Type.String({ minLength: 1, description: "A file uploaded with purpose 'batch': JSONL, one request per line." }),
    endpoint: StringEnum(BATCH_ENDPOINTS),
    completion_window: StringEnum(['24h'], { description: 'Only `24h`.' }),
    metadata: OptionalNullable(Metadata),
    output_expires_after: Type.Optional(FileExpiresAfter),
  },
  { title: 'BatchCreateParams' },
);
export type BatchCreateParams = Static<typeof BatchCreateParams>;

export const BatchListParams = ListQuery();
export type BatchListParams = Static<typeof BatchListParams>;

/** One problem of the input file: which line, which field. */
export const BatchError = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    param: Type.Union([Type.String(), Type.Null()]),
    line: Type.Union([Type.Integer(), Type.Null()]),
  },
  { title: 'BatchError', additionalProperties: false },
);
export type BatchError = Static<typeof BatchError>;

export const BatchRequestCounts = Type.Object(
  { total: Type.Integer(), completed: Type.Integer(), failed: Type.Integer() },
  { title: 'BatchRequestCounts', additionalProperties: false },
);
export type BatchRequestCounts = Static<typeof BatchRequestCounts>;

export const BatchUsage = Type.Object(
  {
    input_tokens: Type.Integer(),
    input_tokens_details: Type.Object({ cached_tokens: Type.Integer() }, { additionalProperties: false }),
    output_tokens: Type.Integer(),
    output_tokens_details: Type.Object({ reasoning_tokens: Type.Integer() }, { additionalProperties: false }),
    total_tokens: Type.Integer(),
  },
  { title: 'BatchUsage', additionalProperties: false },
);
export type BatchUsage = Static<typeof BatchUsage>;

/** A batch as the `openai` v7 types declare it: timestamps and file ids only once they exist. */
export const Batch = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('batch'),
    endpoint: Type.String(),
    input_file_id: Type.String(),
    completion_window: Type.String(),
    status: StringEnum(BATCH_STATUSES),
    created_at: Type.Integer(),
    expires_at: Type.Optional(Type.Integer()),
    in_progress_at: Type.Optional(Type.Integer()),
    finalizing_at: Type.Optional(Type.Integer()),
    completed_at: Type.Optional(Type.Integer()),
    failed_at: Type.Optional(Type.Integer()),
    expired_at: Type.Optional(Type.Integer()),
    cancelling_at: Type.Optional(Type.Integer()),
    cancelled_at: Type.Optional(Type.Integer()),
    output_file_id: Type.Optional(Type.String()),
    error_file_id: Type.Optional(Type.String()),
    errors: Type.Optional(Type.Object({ object: Type.Literal('list'), data: Type.Array(BatchError) }, { additionalProperties: false })),
    model: Type.Optional(Type.String()),
    metadata: Type.Union([Metadata, Type.Null()]),
    request_counts: BatchRequestCounts,
    usage: BatchUsage,
  },
  { title: 'Batch', additionalProperties: false },
);
export type Batch = Static<typeof Batch>;

export const BatchesPage = ListPage(Batch);
export type BatchesPage = Static<typeof BatchesPage>;
