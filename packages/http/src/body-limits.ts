const KiB = 1024;
const MiB = 1024 * KiB;

/** Largest upload `POST /v1/files` accepts (spec: 25 MB). */
export const MAX_UPLOAD_BYTES = 25 * MiB;

/**
 * Largest JSON request body per route family, in bytes; a larger body answers 413 `request_too_large`
 * before it is parsed. Chat and responses carry images inline (base64 data URLs); assistants carry
 * messages of up to 256,000 characters each; the rest carry small objects. `POST /v1/files` is
 * multipart and limited by the file size instead (25 MB).
 */
export const BODY_LIMITS = {
  /** `POST /v1/chat/completions`, `POST /v1/responses`. */
  chat: 32 * MiB,
  /** Assistants, threads, messages, runs, tool outputs. */
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
} as const;
