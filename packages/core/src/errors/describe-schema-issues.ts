/** The parts of an ajv `ErrorObject` the wording needs (fastify's and our own ajv instances both give them). */
export interface SchemaIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
  /** Present when the validator runs with `verbose: true`. */
  schema?: unknown;
  parentSchema?: { description?: string };
}

/** `/messages/0/content` -> `messages[0].content`, the way OpenAI names nested fields. */
export function issueField(issue: SchemaIssue, child?: string): string {
  const base = issue.instancePath
    .replace(/^\//, '')
    .split('/')
    .filter(Boolean)
    .reduce((path, part) => (/^\d+$/.test(part) ? `${path}[${part}]` : path ? `${path}.${part}` : part), '');
  if (child) return base ? `${base}.${child}` : child;
  return base || 'body';
}

/** One sentence naming the field, in OpenAI's wording. */
export function describeSchemaIssue(issue: SchemaIssue): { message: string; param: string } {
  const param =
    issue.keyword === 'required'
      ? issueField(issue, String(issue.params.missingProperty))
      : issue.keyword === 'additionalProperties'
        ? issueField(issue, String(issue.params.additionalProperty))
        : issueField(issue);
  switch (issue.keyword) {
    case 'required':
      return { message: `Missing required parameter: '${param}'.`, param };
    case 'additionalProperties':
      return { message: `Unrecognized request argument supplied: '${param}'.`, param };
    case 'type':
      return { message: `Invalid type for '${param}': expected ${issue.params.type}.`, param };
    case 'enum':
      return {
        message: `Invalid value for '${param}': expected one of ${(issue.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}.`,
        param,
      };
    case 'pattern':
    case 'format': {
      const description = issue.parentSchema?.description;
      const expected = description
        ? description.replace(/\.$/, '').replace(/^./, (c) => c.toLowerCase())
        : issue.keyword === 'format'
          ? `a ${issue.params.format}`
          : `a value matching ${issue.params.pattern}`;
      return { message: `Invalid value for '${param}': expected ${expected}.`, param };
    }
    case 'anyOf': {
      const names = Array.isArray(issue.schema)
        ? (issue.schema as Array<{ required?: string[] }>).flatMap((option) => option.required ?? [])
        : [];
      if (names.length)
        return { message: `Missing parameter: provide at least one of ${names.map((name) => `'${name}'`).join(', ')}.`, param };
      return { message: `Invalid '${param}': ${issue.message ?? 'must match one of the allowed shapes'}.`, param };
    }
    default:
      return { message: `Invalid '${param}': ${issue.message ?? issue.keyword}.`, param };
  }
}

/**
 * All issues of one failed validation as a single 400 message naming each field (deduplicated).
 * The branches ajv reports under `anyOf`/`oneOf` are dropped when other issues say more.
 */
export function describeSchemaIssues(issues: readonly SchemaIssue[]): { message: string; param: string | null } {
  const meaningful = issues.filter((issue) => !['oneOf', 'if'].includes(issue.keyword) || issues.length === 1);
  const described = meaningful.map(describeSchemaIssue);
  return { message: [...new Set(described.map((d) => d.message))].join(' '), param: described[0]?.param ?? null };
}
