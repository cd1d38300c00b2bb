/** The parts of an ajv `ErrorObject` the wording needs (fastify's and our own ajv instances both give them). */
export interface SchemaIssue {
  keyword: string;
  instancePath: string;
  /** Where in the schema the failing keyword is (`#/properties/tools/items/oneOf`). */
  schemaPath?: string;
  params: Record<string, unknown>;
  message?: string;
  /** Present when the validator runs with `verbose: true`: the keyword's value, its schema, the value checked. */
  schema?: unknown;
  parentSchema?: { description?: string; type?: unknown; minimum?: number; maximum?: number; [key: string]: unknown };
  data?: unknown;
  /** Set on the issues of a `propertyNames` schema: the key that failed it. */
  propertyName?: string;
}

/** One described issue: the sentence, the field it names, and OpenAI's error code for it. */
export interface DescribedIssue {
  message: string;
  param: string;
  code: string;
}

/** `/messages/0/content` -> `messages[0].content`, the way OpenAI names nested fields. */
export function issueField(issue: SchemaIssue, child?: string): string {
  const base = issue.instancePath
    .replace(/^\//, '')
    .split('/')
    .filter(Boolean)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
  if (child) return base ? `${base}.${child}` : child;
  return base || 'body';
}

const quoted = (values: readonly unknown[]) =>
  values.map((value) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value))).join(', ');

/** `['string', 'null']` -> `a string or null`. */
function typeNames(type: unknown): string {
  const names = (Array.isArray(type) ? type : [type]).map(String);
  const article = (name: string) =>
    name === 'null' ? 'null' : name === 'integer' || name === 'array' || name === 'object' ? `an ${name}` : `a ${name}`;
  return names.map(article).join(' or ');
}

/**
 * What a range keyword's schema asks for, both bounds when it has two: `an integer between 1 and 100`,
 * `a number > 0 and <= 1000000000`, `a number >= 0`.
 */
function rangeOf(issue: SchemaIssue): string {
  const schema = issue.parentSchema ?? {};
  // A nullable field's type is a list (`['integer', 'null']`).
  const kind = (Array.isArray(schema.type) ? schema.type : [schema.type]).includes('integer') ? 'an integer' : 'a number';
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum } = schema;
  // A range of one value (`n` of chat completions) is that value, and its schema's description says why.
  if (minimum !== undefined && minimum === maximum)
    return `${minimum}${schema.description ? `. ${schema.description.replace(/\.$/, '')}` : ''}`;
  if (typeof minimum === 'number' && typeof maximum === 'number') return `${kind} between ${minimum} and ${maximum}`;
  const lower = typeof minimum === 'number' ? `>= ${minimum}` : typeof exclusiveMinimum === 'number' ? `> ${exclusiveMinimum}` : undefined;
  const upper = typeof maximum === 'number' ? `<= ${maximum}` : typeof exclusiveMaximum === 'number' ? `< ${exclusiveMaximum}` : undefined;
  if (lower && upper) return `${kind} ${lower} and ${upper}`;
  const limit = issue.params.limit;
  const comparison = String(issue.params.comparison ?? (issue.keyword.includes('inimum') ? '>=' : '<='));
  return `${kind} ${comparison} ${String(limit)}`;
}

/** The tag values a discriminated union accepts, read from its branches. */
function tagValues(issue: SchemaIssue): unknown[] {
  const tag = String(issue.params.tag);
  const branches = (issue.parentSchema?.oneOf ?? []) as Array<{ properties?: Record<string, { const?: unknown; enum?: unknown[] }> }>;
  return branches.flatMap((branch) => {
    const property = branch.properties?.[tag];
    return property?.const !== undefined ? [property.const] : (property?.enum ?? []);
  });
}

/** One sentence naming the field, in OpenAI's wording. */
export function describeSchemaIssue(issue: SchemaIssue): DescribedIssue {
  const param =
    issue.keyword === 'required'
      ? issueField(issue, String(issue.params.missingProperty))
      : issue.keyword === 'additionalProperties'
        ? issueField(issue, String(issue.params.additionalProperty))
        : issue.keyword === 'discriminator'
          ? issueField(issue, String(issue.params.tag))
          : issueField(issue);
  const invalid = (message: string, code = 'invalid_request_error') => ({ message, param, code });
  const data = issue.data;
  switch (issue.keyword) {
    case 'required':
      return invalid(`Missing required parameter: '${param}'.`, 'missing_required_parameter');
    case 'additionalProperties':
      return invalid(`Unrecognized request argument supplied: '${param}'.`, 'unknown_parameter');
    case 'type':
      return invalid(`Invalid type for '${param}': expected ${typeNames(issue.params.type)}.`, 'invalid_type');
    case 'enum':
      return invalid(`Invalid value for '${param}': expected one of ${quoted(issue.params.allowedValues as unknown[])}.`, 'invalid_value');
    case 'const':
      return invalid(`Invalid value for '${param}': expected ${quoted([issue.params.allowedValue])}.`, 'invalid_value');
    case 'discriminator':
      return issue.params.error === 'tag' && typeof data === 'object' && data !== null && !(String(issue.params.tag) in data)
        ? invalid(`Missing required parameter: '${param}'.`, 'missing_required_parameter')
        : invalid(
            `Invalid value for '${param}': ${quoted([issue.params.tagValue])}. Supported values are: ${quoted(tagValues(issue))}.`,
            'invalid_value',
          );
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return invalid(`Invalid '${param}': expected ${rangeOf(issue)}.`, 'invalid_value');
    case 'maxLength':
      return invalid(
        `Invalid '${param}': string too long. Expected a string with maximum length ${String(issue.params.limit)}, but got a string with length ${typeof data === 'string' ? [...data].length : '?'} instead.`,
        'string_above_max_length',
      );
    case 'minLength':
      return Number(issue.params.limit) === 1
        ? invalid(`Invalid '${param}': expected a non-empty string.`, 'empty_string')
        : invalid(`Invalid '${param}': expected a string of at least ${String(issue.params.limit)} characters.`, 'string_below_min_length');
    case 'maxItems':
      return invalid(
        `Invalid '${param}': array too long. Expected an array with maximum length ${String(issue.params.limit)}, but got an array with length ${Array.isArray(data) ? data.length : '?'} instead.`,
        'array_above_max_length',
      );
    case 'minItems':
      return invalid(
        `Invalid '${param}': empty array. Expected an array with minimum length ${String(issue.params.limit)}, but got an array with length ${Array.isArray(data) ? data.length : 0} instead.`,
        'empty_array',
      );
    case 'not': {
      const instead = issue.parentSchema?.description;
      return invalid(`Unsupported parameter: '${param}'.${instead ? ` ${instead}` : ''}`, 'unsupported_parameter');
    }
    case 'maxProperties':
      return invalid(`Invalid '${param}': at most ${String(issue.params.limit)} keys are allowed.`, 'object_above_max_properties');
    case 'propertyNames': {
      const key = String(issue.params.propertyName);
      const shown = key.length > 20 ? `${key.slice(0, 20)}…` : key;
      const max = (issue.schema as { maxLength?: unknown } | undefined)?.maxLength;
      return typeof max === 'number'
        ? invalid(
            `Invalid '${param}': key too long. Expected keys with maximum length ${max}, but got '${shown}' with length ${[...key].length} instead.`,
            'string_above_max_length',
          )
        : invalid(`Invalid '${param}': the key '${shown}' is not allowed.`, 'invalid_value');
    }
    case 'pattern':
    case 'format': {
      // NonBlankString (wire/builders.ts): a value of nothing but white space reads as an empty one.
      if (issue.keyword === 'pattern' && issue.params.pattern === '\\S') {
        return invalid(`Invalid '${param}': expected a non-blank string.`, 'empty_string');
      }
      const description = issue.parentSchema?.description;
      const expected = description
        ? description.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase())
        : issue.keyword === 'format'
          ? `a ${String(issue.params.format)}`
          : `a value matching ${String(issue.params.pattern)}`;
      return invalid(`Invalid value for '${param}': expected ${expected}.`, 'invalid_value');
    }
    case 'anyOf':
    case 'oneOf': {
      const names = Array.isArray(issue.schema)
        ? (issue.schema as Array<{ required?: string[]; type?: unknown }>).flatMap((option) => option.required ?? [])
        : [];
      if (issue.keyword === 'anyOf' && names.length && Array.isArray(issue.schema) && issue.schema.every((o) => !o.type)) {
        return invalid(`Missing parameter: provide at least one of ${quoted(names)}.`);
      }
      const description = issue.parentSchema?.description;
      if (description)
        return invalid(`Invalid '${param}': expected ${description.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase())}.`);
      const types = Array.isArray(issue.schema)
        ? (issue.schema as Array<{ type?: unknown }>).map((option) => option.type).filter(Boolean)
        : [];
      return invalid(
        types.length
          ? `Invalid type for '${param}': expected ${typeNames(types.flat())}.`
          : `Invalid '${param}': ${issue.message ?? 'must match one of the allowed shapes'}.`,
        'invalid_type',
      );
    }
    default:
      return invalid(`Invalid '${param}': ${issue.message ?? issue.keyword}.`);
  }
}

/** The JSON type names `value` has (`integer` values are numbers too). */
function jsonTypes(value: unknown): string[] {
  if (value === null) return ['null'];
  if (Array.isArray(value)) return ['array'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

/**
 * The one branch of a failed union that the value's JSON type selects (the object branch of
 * `anyOf: [ExpiresAfter, null]` for an object), so its own issues can be reported instead of the
 * union's "expected an object or null"; undefined when the type selects no branch or several.
 */
function selectedBranch(union: SchemaIssue): number | undefined {
  if (!Array.isArray(union.schema)) return undefined;
  const types = jsonTypes(union.data);
  const matching = (union.schema as Array<{ type?: unknown }>).flatMap((branch, index) => {
    const admits =
      branch.type === undefined ? true : (Array.isArray(branch.type) ? branch.type : [branch.type]).some((t) => types.includes(String(t)));
    return admits ? [index] : [];
  });
  return matching.length === 1 ? matching[0] : undefined;
}

/**
 * Keeps the issues that say what is wrong. A failed `anyOf`/`oneOf` comes with the failures of each of
 * its branches, which only repeat it in other words and contradict each other ("expected a string",
 * "expected null"): when the value's type selects one branch, that branch's issues are kept and the
 * union's dropped; otherwise the union is reported and its branches' issues dropped.
 */
function meaningfulIssues(issues: readonly SchemaIssue[]): SchemaIssue[] {
  const dropped = new Set<SchemaIssue>();
  for (const union of issues) {
    if ((union.keyword !== 'anyOf' && union.keyword !== 'oneOf') || union.schemaPath === undefined) continue;
    const branch = selectedBranch(union);
    const branchIssues = issues.filter((issue) => issue !== union && issue.schemaPath?.startsWith(`${union.schemaPath}/`));
    const selected =
      branch === undefined ? [] : branchIssues.filter((issue) => issue.schemaPath!.startsWith(`${union.schemaPath}/${branch}/`));
    // Issues raised inside a `$ref` (a recursive schema) carry the referenced schema's own paths: one at or
    // under the union's value whose path leaves the schema holding the union came through the selected branch.
    const holder = union.schemaPath.slice(0, union.schemaPath.lastIndexOf('/'));
    const referenced =
      branch === undefined
        ? []
        : issues.filter(
            (issue) =>
              issue !== union &&
              !issue.schemaPath?.startsWith(`${holder}/`) &&
              (issue.instancePath === union.instancePath || issue.instancePath.startsWith(`${union.instancePath}/`)),
          );
    if (selected.length || referenced.length) {
      dropped.add(union);
      for (const issue of branchIssues) if (!selected.includes(issue)) dropped.add(issue);
    } else {
      for (const issue of branchIssues) dropped.add(issue);
    }
  }
  // The issues inside a `propertyNames` schema repeat it about the key: the `propertyNames` issue names it.
  return issues.filter((issue) => issue.keyword !== 'if' && issue.propertyName === undefined && !dropped.has(issue));
}

/**
 * All issues of one failed validation as a single 400 message naming each field (deduplicated), with
 * the field and code of the first.
 */
export function describeSchemaIssues(issues: readonly SchemaIssue[]): { message: string; param: string | null; code: string } {
  const described = meaningfulIssues(issues).map(describeSchemaIssue);
  return {
    message: [...new Set(described.map((d) => d.message))].join(' '),
    param: described[0]?.param ?? null,
    code: described[0]?.code ?? 'invalid_request_error',
  };
}
