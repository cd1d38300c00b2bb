import { Ajv, type ValidateFunction } from 'ajv';
import { describeSchemaIssues, FathomError, InvalidRequestError, type SchemaIssue } from '../errors';
import type { Logger } from '../internal/logger';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { textResult } from './types';

let ajv: Ajv | undefined;
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * Checks a tool call's arguments against the schema the tool validates with (defaults filled in)
 * and answers them typed; 400 naming each missing or wrong field, as the HTTP route would.
 */
export function checkArguments<T>(tool: string, schema: object, args: Record<string, unknown>): T {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = (ajv ??= new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false, verbose: true })).compile(schema);
    compiled.set(schema, validate);
  }
  // The arguments are this request's own (parsed from its body): defaults are filled in place.
  if (!validate(args)) {
    const { message, param } = describeSchemaIssues((validate.errors ?? []) as SchemaIssue[]);
    throw new InvalidRequestError(`Invalid arguments for tool '${tool}': ${message}`, param);
  }
  return args as T;
}

/**
 * What a failed tool call answers: a FathomError's message (a wrong argument, an unknown id, a balance
 * too low, a tool not configured, an upstream's refusal), as the HTTP routes show it, in an error result
 * the model can read and act on; anything else is logged and answered with a message that shows nothing
 * of the server's internals.
 */
export function toolErrorResult(tool: string, error: unknown, log: Logger): CallToolResult {
  if (error instanceof FathomError) return textResult(`Error: ${error.message}`, true);
  log.error(`mcp: tool '${tool}' failed`, error);
  return textResult('Error: the server had an error while running this tool; try again later.', true);
}
