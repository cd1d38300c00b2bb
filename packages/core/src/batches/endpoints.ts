import { describeSchemaIssues, FathomError } from '../errors';
import { ChatCompletionCreateParams, EmbeddingCreateParams } from '../models';
import { readResponseRequest } from '../responses/read-request';
import { ResponseCreateParams } from '../responses/wire/responses';
import { compileCheck, type SchemaCheck } from '../wire';
import { type LineUsage, NO_USAGE } from './batches-repository';
import type { BatchEndpoint } from './wire/batches';

/**
 * What a batch calls for each line: the core methods behind the synchronous routes of the same names
 * (`fathom.chat.completions.create`, `fathom.responses.create`, `fathom.embeddings.create`), so a line gets
 * the same validation, model routing, aliases and usage recording as a request to the route. The
 * composition root wires it. Each answers the body the route would answer.
 */
export type BatchEndpointCalls = Record<
  BatchEndpoint,
  (accountId: string, body: Record<string, unknown>, signal: AbortSignal) => Promise<unknown>
>;

/** A problem of a line's body, as the route would answer it (its message, param and code). */
export interface BodyProblem {
  message: string;
  param: string | null;
  code: string;
}

// Compiled at the first batch, not when Fathom loads.
let checks:
  | {
      chat: SchemaCheck<ChatCompletionCreateParams>;
      embeddings: SchemaCheck<EmbeddingCreateParams>;
      responses: SchemaCheck<ResponseCreateParams>;
    }
  | undefined;

/**
 * Checks a line's body as the endpoint's route does before it calls core: the route's JSON Schema (the
 * same ajv options as the HTTP server), and for `/v1/responses` core's own reading of the body after it. A batch
 * line cannot stream (`stream: true` is refused) and a Responses line cannot run in the background.
 */
export function checkBody(endpoint: BatchEndpoint, body: Record<string, unknown>): BodyProblem | null {
  const streams = body.stream === true;
  checks ??= {
    chat: compileCheck(ChatCompletionCreateParams),
    embeddings: compileCheck(EmbeddingCreateParams),
    responses: compileCheck(ResponseCreateParams),
  };
  if (endpoint === '/v1/chat/completions') {
    if (!checks.chat(body)) return describeSchemaIssues(checks.chat.issues);
  } else if (endpoint === '/v1/embeddings') {
    if (!checks.embeddings(body)) return describeSchemaIssues(checks.embeddings.issues);
  } else {
    if (!checks.responses(body)) return describeSchemaIssues(checks.responses.issues);
    try {
      readResponseRequest(body);
    } catch (error) {
      if (!(error instanceof FathomError)) throw error;
      return { message: error.message, param: error.param, code: error.code };
    }
    if (body.background === true)
      return {
        message: "A batch line cannot use 'background': the batch itself runs in the background.",
        param: 'background',
        code: 'invalid_value',
      };
  }
  if (streams)
    return {
      message: "A batch line cannot stream: remove 'stream' (its answer is written to the output file).",
      param: 'stream',
      code: 'invalid_value',
    };
  return null;
}

/** Inputs an embeddings body carries (a string or one token array is one). */
export function embeddingInputs(body: Record<string, unknown>): number {
  const input = body.input;
  if (!Array.isArray(input)) return 1;
  return typeof input[0] === 'number' ? 1 : input.length;
}

/** The token usage of an answer body, whichever endpoint's shape it has. */
export function usageOf(body: unknown): LineUsage {
  const usage = (body as { usage?: Record<string, unknown> | null } | null)?.usage;
  if (!usage || typeof usage !== 'object') return NO_USAGE;
  const number = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);
  const details = (key: string, field: string) => number((usage[key] as Record<string, unknown> | undefined)?.[field]);
  const input = number(usage.input_tokens ?? usage.prompt_tokens);
  const output = number(usage.output_tokens ?? usage.completion_tokens);
  return {
    input,
    output,
    cached: details('input_tokens_details', 'cached_tokens') || details('prompt_tokens_details', 'cached_tokens'),
    reasoning: details('output_tokens_details', 'reasoning_tokens') || details('completion_tokens_details', 'reasoning_tokens'),
    total: number(usage.total_tokens) || input + output,
  };
}
