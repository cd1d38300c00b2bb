/**
 * JSON Schemas of the workflow format, checked with ajv. The envelope is checked first; each node's
 * `data` is then checked against the schema of its type. Extra keys (canvas positions, UI state)
 * are accepted and kept: editors round-trip them.
 */
const stringMap = { type: 'object', additionalProperties: { type: 'string' } } as const;
const nonEmpty = { type: 'string', minLength: 1 } as const;

export const workflowEnvelopeSchema = {
  type: 'object',
  required: ['nodes', 'edges'],
  properties: {
    nodes: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'type', 'data'],
        properties: { id: nonEmpty, type: { type: 'string' }, data: { type: 'object' } },
      },
    },
    edges: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'source', 'target'],
        properties: {
          id: nonEmpty,
          source: nonEmpty,
          target: nonEmpty,
          targetHandle: { type: ['string', 'null'] },
          sourceHandle: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

export const startDataSchema = {
  type: 'object',
  properties: {
    label: { type: 'string' },
    variables: {
      type: 'array',
      items: {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', pattern: '^[A-Za-z_][A-Za-z0-9_]*$' },
          type: { type: 'string' },
          required: { type: 'boolean' },
          description: { type: 'string' },
        },
      },
    },
  },
} as const;

export const agentDataSchema = {
  type: 'object',
  required: ['name', 'model'],
  properties: {
    name: nonEmpty,
    // `<vendor>/<model>`, or an id the installation maps (FATHOM_MODEL_ALIASES, FATHOM_DEFAULT_VENDOR): checked on publish.
    model: { type: 'string', pattern: '^\\S+$' },
    system_prompt: { type: 'string' },
    config: {
      type: 'object',
      properties: { tools_filter: { type: 'array', items: { type: 'string' } } },
    },
  },
} as const;

const parameterSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string', pattern: '^[a-z0-9_]+$' },
    type: { enum: ['string', 'number', 'boolean', 'array', 'object'] },
    required: { type: 'boolean' },
    description: { type: 'string' },
    howToObtain: { type: 'string' },
    example: { type: 'string' },
    defaultValue: { type: 'string' },
    validValues: { type: 'array', items: { type: 'string' } },
    in: { type: 'string' },
  },
} as const;

const routeSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    whenToUse: { type: 'string' },
    method: { enum: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] },
    path: { type: 'string' },
    parameters: { type: 'array', items: parameterSchema },
    bodyTemplate: { type: 'string' },
    queryParams: stringMap,
    headers: stringMap,
    responseDescription: { type: 'string' },
    enabled: { type: 'boolean' },
    responseMapping: stringMap,
    dependsOn: { type: 'array', items: { type: 'string' } },
    triggers: { type: 'array', items: { type: 'string' } },
  },
} as const;

/** The fields each auth type needs (Authentication 3 of the spec). */
function authNeeds(type: string, fields: string[]) {
  return {
    if: { properties: { type: { const: type } }, required: ['type'] },
    // biome-ignore lint/suspicious/noThenProperty: JSON Schema if/then keyword
    then: { required: fields, properties: Object.fromEntries(fields.map((field) => [field, { type: 'string' }])) },
  };
}

export const webhookDataSchema = {
  type: 'object',
  required: ['name', 'config'],
  properties: {
    name: nonEmpty,
    config: {
      type: 'object',
      properties: {
        baseUrl: { type: 'string' },
        description: { type: 'string' },
        auth: {
          type: 'object',
          required: ['type'],
          properties: {
            type: { enum: ['none', 'bearer', 'api_key', 'basic', 'custom_header'] },
            apiKeyLocation: { enum: ['header', 'query'] },
          },
          allOf: [
            authNeeds('bearer', ['token']),
            authNeeds('api_key', ['apiKey', 'apiKeyName']),
            authNeeds('basic', ['username', 'password']),
            authNeeds('custom_header', ['customHeaderName', 'customHeaderValue']),
          ],
        },
        defaultHeaders: stringMap,
        timeout: { type: 'number', exclusiveMinimum: 0 },
        retryOnError: { type: 'boolean' },
        maxRetries: { type: 'integer', minimum: 0, maximum: 10 },
        routes: { type: 'array', items: routeSchema },
        maxRequestsPerMinute: { type: 'number', exclusiveMinimum: 0 },
      },
    },
  },
} as const;

export const endDataSchema = {
  type: 'object',
  properties: { label: { type: 'string' }, status: { type: 'string' } },
} as const;
