import { MAX_FILE_BYTES } from '@fathom/core';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Largest upload `POST /v1/files` accepts: 25 MB (25,000,000 bytes, as the spec states it). */
export const MAX_UPLOAD_BYTES = MAX_FILE_BYTES;

/**
 * Largest JSON request body per route family, in bytes; a larger body answers 413 `request_too_large`
 * before it is parsed. A route takes its family's limit from `route-tables.ts` unless it names a larger
 * one itself: only the routes that carry images inline (base64 data URLs) take `chat`, so a metadata
 * update or a cancel beside them stays at `default`. `POST /v1/files` is multipart and limited by the
 * file size instead (`MAX_UPLOAD_BYTES`). docs/api.md's limits table is checked against these values
 * and `BODY_LIMITS_TABLE` (packages/http/test/limits-docs.test.ts).
 */
export const BODY_LIMITS = {
  /** Chat completions, responses and the conversation items they read (images inline as base64). */
  chat: 32 * MiB,
  /** Assistants, threads, messages, runs, tool outputs (messages of up to 256,000 characters each). */
  assistants: 16 * MiB,
  /** `POST /v1/embeddings` (up to 2048 inputs). */
  embeddings: 8 * MiB,
  /** Agent workflows (many Webhook cards) and agent runs. */
  agents: 4 * MiB,
  /** Vector stores, store files, file batches (up to 2000 files with attributes), search. */
  documents: 4 * MiB,
  /** Data-tool job inputs. */
  tools: 1 * MiB,
  /** Account and admin requests. */
  admin: 64 * KiB,
  /** Every other route: metadata updates, cancels, deletes, conversations' metadata. */
  default: 1 * MiB,
} as const;

export type BodyLimitFamily = keyof typeof BODY_LIMITS;

/**
 * The rows of docs/api.md's request-body table, in order: which routes each family covers. `routes`
 * lists a family's routes exactly (a test checks that no other route has that limit); `covers` says
 * it in words where a family is a whole capability.
 */
export const BODY_LIMITS_TABLE: ReadonlyArray<{ family: BodyLimitFamily; routes?: readonly string[]; covers?: string }> = [
  {
    family: 'chat',
    routes: ['POST /v1/chat/completions', 'POST /v1/responses', 'POST /v1/conversations', 'POST /v1/conversations/{id}/items'],
    covers: 'images inline as base64',
  },
  { family: 'assistants', covers: 'assistants, threads, messages, runs, tool outputs' },
  { family: 'embeddings', routes: ['POST /v1/embeddings'] },
  { family: 'agents', covers: 'agents (workflows, runs)' },
  { family: 'documents', covers: 'vector stores, store files, file batches, search' },
  { family: 'tools', covers: 'data tools (`POST /v1/tools/{tool}`)' },
  { family: 'admin', covers: 'account and admin' },
  { family: 'default', covers: 'anything else' },
];
