import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { checkBody, embeddingInputs } from './endpoints';
import { type BatchEndpoint, type BatchError, MAX_BATCH_EMBEDDING_INPUTS, MAX_BATCH_REQUESTS } from './wire/batches';

/** One request of the input file, as the batch runs it. `line` counts from 1, blank lines included. */
export interface BatchLine {
  line: number;
  customId: string;
  body: Record<string, unknown>;
}

/** Errors a failed batch lists at most; reading stops there. */
export const MAX_REPORTED_ERRORS = 100;

/**
 * The non-blank lines of a JSONL stream, one at a time: the file is never held in memory, whatever its
 * size (the reader pauses the stream while the consumer works on a line).
 */
export async function* jsonlLines(stream: Readable): AsyncGenerator<{ line: number; text: string }> {
  const reader = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of reader) {
      line++;
      if (text.trim() !== '') yield { line, text };
    }
  } finally {
    reader.close();
    stream.destroy();
  }
}

/** The requests of an input file already validated: its lines parsed again, in order. */
export async function* batchLines(stream: Readable): AsyncGenerator<BatchLine> {
  for await (const { line, text } of jsonlLines(stream)) {
    const parsed = JSON.parse(text) as { custom_id: string; body: Record<string, unknown> };
    yield { line, customId: parsed.custom_id, body: parsed.body };
  }
}

export interface ValidatedInput {
  errors: BatchError[];
  total: number;
  model: string | null;
  /** The most the lines can use, for the batch's hold. */
  bounds: BatchBounds;
}

/** The most a batch's lines can use: what its one hold is sized to. */
export interface BatchBounds {
  /** Input tokens at most: the lines' UTF-8 bytes (a token is at least one byte). */
  inputTokensAtMost: number;
  /** Output tokens of the lines that bound them (`max_tokens`, `max_completion_tokens`, `max_output_tokens`). */
  outputTokens: number;
  /** Lines that produce output without bounding it (held at the model's output limit). */
  unboundedLines: number;
}

/** A line body's bound on its output tokens: a number, null when it sets none, 0 for embeddings. */
function outputBound(endpoint: BatchEndpoint, body: Record<string, unknown>): number | null {
  if (endpoint === '/v1/embeddings') return 0;
  const bound = endpoint === '/v1/responses' ? body.max_output_tokens : (body.max_completion_tokens ?? body.max_tokens);
  return typeof bound === 'number' && Number.isFinite(bound) && bound >= 0 ? bound : null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Reads the whole input file once, line by line, and lists what makes it unusable: a line that is not a
 * JSON object, a missing or repeated `custom_id`, a `method` other than POST, a `url` other than the
 * batch's endpoint, a body the endpoint would refuse (its message, code and field), a model other than
 * the first line's (one model per batch), more than 50,000 requests (or embedding inputs), or no request
 * at all. Only the custom_ids are kept (at most 50,000 of them), never the lines.
 */
export async function validateInput(stream: Readable, endpoint: BatchEndpoint): Promise<ValidatedInput> {
  const errors: BatchError[] = [];
  const seen = new Set<string>();
  let total = 0;
  let inputs = 0;
  let model: string | null = null;
  const bounds: BatchBounds = { inputTokensAtMost: 0, outputTokens: 0, unboundedLines: 0 };
  const problem = (line: number | null, code: string, message: string, param: string | null = null) => {
    errors.push({ code, message, param, line });
  };
  for await (const { line, text } of jsonlLines(stream)) {
    if (errors.length >= MAX_REPORTED_ERRORS) break;
    total++;
    if (total > MAX_BATCH_REQUESTS) {
      problem(
        line,
        'too_many_requests',
        `The input file has more than ${MAX_BATCH_REQUESTS.toLocaleString('en-US')} requests; split it into several batches.`,
      );
      break;
    }
    let request: unknown;
    try {
      request = JSON.parse(text);
    } catch (error) {
      problem(line, 'invalid_json_line', `Line ${line} is not valid JSON: ${(error as Error).message}`);
      continue;
    }
    if (!isObject(request)) {
      problem(line, 'invalid_json_line', `Line ${line} must be a JSON object with 'custom_id', 'method', 'url' and 'body'.`);
      continue;
    }
    const customId = request.custom_id;
    if (customId === undefined || customId === null || customId === '') {
      problem(line, 'missing_required_parameter', `Line ${line}: missing required parameter 'custom_id'.`, 'custom_id');
    } else if (typeof customId !== 'string') {
      problem(line, 'invalid_type', `Line ${line}: 'custom_id' must be a string.`, 'custom_id');
    } else if (seen.has(customId)) {
      problem(
        line,
        'duplicate_custom_id',
        `Line ${line}: the custom_id '${customId.slice(0, 100)}' is used by an earlier line; each must be unique.`,
        'custom_id',
      );
    } else {
      seen.add(customId);
    }
    if (request.method !== 'POST') {
      problem(line, 'invalid_method', `Line ${line}: 'method' must be 'POST'.`, 'method');
    }
    if (request.url !== endpoint) {
      problem(
        line,
        'invalid_url',
        `Line ${line}: 'url' is '${String(request.url).slice(0, 100)}', not the batch's endpoint '${endpoint}'.`,
        'url',
      );
    }
    if (!isObject(request.body)) {
      problem(line, 'missing_required_parameter', `Line ${line}: 'body' must be a JSON object, the request to '${endpoint}'.`, 'body');
      continue;
    }
    const refused = checkBody(endpoint, request.body);
    if (refused) {
      problem(line, refused.code, `Line ${line}: ${refused.message}`, refused.param === null ? 'body' : `body.${refused.param}`);
      continue;
    }
    bounds.inputTokensAtMost += Buffer.byteLength(text);
    const output = outputBound(endpoint, request.body);
    if (output === null) bounds.unboundedLines++;
    else bounds.outputTokens += output;
    const lineModel = request.body.model as string;
    if (model === null) model = lineModel;
    else if (lineModel !== model) {
      problem(
        line,
        'mismatched_model',
        `Line ${line}: the model '${lineModel.slice(0, 100)}' differs from the batch's '${model}'; one batch runs one model.`,
        'body.model',
      );
    }
    if (endpoint === '/v1/embeddings') {
      inputs += embeddingInputs(request.body);
      if (inputs > MAX_BATCH_EMBEDDING_INPUTS) {
        problem(
          line,
          'too_many_inputs',
          `The batch has more than ${MAX_BATCH_EMBEDDING_INPUTS.toLocaleString('en-US')} embedding inputs across its lines.`,
          'body.input',
        );
        break;
      }
    }
  }
  if (total === 0 && errors.length === 0) problem(null, 'empty_file', 'The input file holds no request.');
  return { errors, total, model, bounds };
}
