import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { createHash } from 'node:crypto';
import { describeSchemaIssues, InvalidRequestError, type SchemaIssue } from '../errors';
import { nestingDepth } from '../internal/nesting-depth';
import type { ToolDefinition } from './catalog';
import type { ToolJobInput } from './wire/data-tools';

let ajv: Ajv | undefined;
/** The validator of tool inputs, made on the first input checked (a process that runs no tool never pays for it). */
function inputAjv(): Ajv {
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, useDefaults: true, coerceTypes: false, strict: false, verbose: true });
    (addFormats as unknown as (instance: Ajv) => void)(ajv);
  }
  return ajv;
}
const compiled = new Map<string, ValidateFunction>();
/** Deepest nesting a tool input may have; the validator and the normaliser recurse, so deeper is refused first. */
const MAX_INPUT_DEPTH = 32;

function validatorFor(definition: ToolDefinition): ValidateFunction {
  let validate = compiled.get(definition.name);
  if (!validate) {
    validate = inputAjv().compile(definition.input_schema);
    compiled.set(definition.name, validate);
  }
  return validate;
}

/**
 * Validates a tool input against its schema (defaults applied to a copy) and answers the input to run.
 * Throws 400 naming each missing, unknown or wrong field.
 */
export function validateToolInput(definition: ToolDefinition, body: ToolJobInput): Record<string, unknown> {
  if (nestingDepth(body, MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH) {
    throw new InvalidRequestError(`Invalid input for tool '${definition.name}': it nests deeper than ${MAX_INPUT_DEPTH} levels.`, null);
  }
  const input = structuredClone(body) as Record<string, unknown>;
  const validate = validatorFor(definition);
  if (!validate(input)) {
    const errors = (validate.errors ?? []).filter((error) => !error.schemaPath.startsWith('#/anyOf/'));
    const { message, param } = describeSchemaIssues(errors as SchemaIssue[]);
    throw new InvalidRequestError(`Invalid input for tool '${definition.name}': ${message}`, param === 'body' ? null : param);
  }
  return normaliseValue(input) as Record<string, unknown>;
}

/** Trims strings and collapses whitespace so equivalent inputs share one cache entry. */
function normaliseValue(value: unknown): unknown {
  if (typeof value === 'string') return value.trim().replace(/\s+/g, ' ');
  if (Array.isArray(value)) return value.map(normaliseValue);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, normaliseValue(inner)]));
  }
  return value;
}

/** Canonical JSON (sorted keys, case-folded strings) of tool + input: the cache and in-flight key. */
export function cacheKey(tool: string, input: Record<string, unknown>): string {
  const canonical = (value: unknown): unknown => {
    if (typeof value === 'string') return value.toLowerCase();
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === 'object') {
      return Object.fromEntries(
        Object.keys(value)
          .sort()
          .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
      );
    }
    return value;
  };
  return createHash('sha256')
    .update(`${tool}\n${JSON.stringify(canonical(input))}`)
    .digest('hex');
}
