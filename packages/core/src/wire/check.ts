import type { Static, TSchema } from '@sinclair/typebox';
import { Ajv, type ValidateFunction } from 'ajv';
import type { SchemaIssue } from '../errors/describe-schema-issues';

/**
 * Validation of a value against a declaration inside core, for what does not arrive through a route
 * (a workflow read back from storage, a draft the tool preview reports on). The options are those the
 * HTTP server validates bodies with (packages/http/src/validators.ts), so core and the edge refuse the
 * same values with the same issues.
 */
let ajv: Ajv | undefined;
const checker = () =>
  (ajv ??= new Ajv({
    allErrors: true,
    verbose: true,
    discriminator: true,
    allowUnionTypes: true,
    coerceTypes: false,
    useDefaults: false,
    addUsedSchema: false,
  }));

/** Checks a value: no issues when it matches the declaration, else every issue (words them: `describeSchemaIssues`). */
export interface SchemaCheck<T> {
  (value: unknown): value is T;
  /** The issues of the last failed check. */
  readonly issues: readonly SchemaIssue[];
}

/**
 * A check of a declaration, compiled once on its first use: modules declare their checks at load, and a
 * process that never checks (`fathom stores list`, a server that never sees a workflow) never compiles them
 * (ajv's code generation is the largest start-up cost of the CLI: docs/decisions/2026-11-26-shared-test-workers.md).
 */
export function compileCheck<T extends TSchema>(schema: T): SchemaCheck<Static<T>> {
  let validate: ValidateFunction | undefined;
  const check = ((value: unknown) => {
    validate ??= checker().compile(schema);
    return validate(value);
  }) as SchemaCheck<Static<T>>;
  Object.defineProperty(check, 'issues', { get: () => (validate?.errors ?? []) as SchemaIssue[] });
  return check;
}
