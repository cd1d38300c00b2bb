import { InvalidRequestError } from '../errors';

/**
 * OpenAI's caps on text fields, in characters (Unicode code points). Core checks them where the field
 * enters, so an app embedding `@fathom/core` gets the same 400 as an HTTP client. docs/api.md's limits
 * table is checked against these values (packages/http/test/limits-docs.test.ts).
 */
export const FIELD_LIMITS = {
  /** `name` of vector stores, assistants and agents. */
  name: 256,
  /** `description` of vector stores and assistants. */
  description: 512,
  /** `instructions` of assistants, runs and responses; `additional_instructions` of runs. */
  instructions: 256_000,
  /** A message's `content` (the text of all its parts together); an agent run's `message`. */
  content: 256_000,
  /** Keys of a `metadata` object (and of store-file `attributes`). */
  metadataKeys: 16,
  /** Length of one `metadata` / `attributes` key. */
  metadataKey: 64,
  /** Length of one `metadata` value (and of a string `attributes` value). */
  metadataValue: 512,
  /** An input item's `id`, a function call's `call_id` and `name` (Responses and Conversations items). */
  itemId: 256,
  /** `function_call.arguments` (a JSON string). */
  arguments: 256_000,
  /** `function_call_output.output`: its text, or its content parts as JSON. */
  toolOutput: 256_000,
  /** A `reasoning` item's `summary` and `content` (each as JSON) and its `encrypted_content`. */
  reasoning: 256_000,
  /** A `file_search_call` item's `queries` and `results`, each as JSON. */
  searchCall: 256_000,
  /** The `annotations` of an `output_text` part, as JSON. */
  annotations: 256_000,
} as const;

/**
 * What one `/v1/responses` request may pull in besides its own body, so that a small request cannot make
 * the server load (or store) many times its size.
 */
export const RESPONSE_LIMITS = {
  /**
   * Bytes (UTF-8 JSON) of stored items — each `item_reference` counted every time it appears, the
   * `previous_response_id` chain, the conversation's items — plus the text extracted from `input_file`
   * parts, together: 32 MiB, what a client could have sent inline (the body limit of `/v1/responses`).
   */
  contextBytes: 32 * 1024 * 1024,
  /** Distinct files (`input_file` by `file_id` or inline `file_data`) whose text one request extracts. */
  inputFiles: 20,
} as const;

/** Code points of `text` (a surrogate pair counts once): what every limit in characters counts. */
export function codePoints(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

function tooLong(param: string, max: number, length: number): InvalidRequestError {
  return new InvalidRequestError(
    `Invalid '${param}': string too long. Expected a string with maximum length ${max}, but got a string with length ${length} instead.`,
    param,
    'string_above_max_length',
  );
}

/** Throws 400 `string_above_max_length` when `value` is a string of more than `max` characters. */
export function checkLength(value: unknown, param: string, max: number): void {
  if (typeof value !== 'string' || value.length <= max) return;
  const length = codePoints(value);
  if (length > max) throw tooLong(param, max, length);
}

/**
 * Throws 400 naming `param` when a structured value (an array or object a client may send back, such as
 * a reasoning summary or search results) is longer than `max` characters as JSON; a string is checked
 * like `checkLength`.
 */
export function checkJsonLength(value: unknown, param: string, max: number): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'string') {
    checkLength(value, param, max);
    return;
  }
  const length = JSON.stringify(value)?.length ?? 0;
  if (length > max) {
    throw new InvalidRequestError(
      `Invalid '${param}': value too large. Expected at most ${max} characters as JSON, but got ${length} instead.`,
      param,
      'value_above_max_length',
    );
  }
}

/** Checks each present field of `body` against its cap, e.g. `{name: FIELD_LIMITS.name}`. */
export function checkLengths(body: unknown, limits: Record<string, number>, prefix = ''): void {
  if (!body || typeof body !== 'object') return;
  for (const [field, max] of Object.entries(limits)) checkLength((body as Record<string, unknown>)[field], `${prefix}${field}`, max);
}

/**
 * Checks a message `content`: a string, or an array of parts whose texts (`text` parts, and the
 * Responses API's `input_text`) count together against FIELD_LIMITS.content.
 */
export function checkContent(content: unknown, param: string): void {
  if (typeof content === 'string') {
    checkLength(content, param, FIELD_LIMITS.content);
    return;
  }
  if (!Array.isArray(content)) return;
  let total = 0;
  for (const part of content) {
    const text = (part as { text?: unknown } | null)?.text;
    if (typeof text === 'string') total += text.length > FIELD_LIMITS.content ? codePoints(text) : text.length;
  }
  if (total > FIELD_LIMITS.content) throw tooLong(param, FIELD_LIMITS.content, total);
}

/** Checks `messages[i].content` of a list of messages (threads, additional messages). */
export function checkMessages(messages: unknown, param: string): void {
  if (!Array.isArray(messages)) return;
  messages.forEach((message, index) => checkContent((message as { content?: unknown } | null)?.content, `${param}[${index}].content`));
}
