import { type Static, Type } from '@sinclair/typebox';
import { NonBlankString, StringEnum, TaggedUnion } from '../../wire';

/**
 * The Webhook card (the `data` of a workflow node of type `webhook`, spec "Webhook card", "Webhook route",
 * "Webhook parameter", "Authentication"), declared once: the agents' routes validate workflows with it and
 * the toolkit's types come from it. Objects stay open: editors keep their own keys (ids, UI state) in a
 * card, and the API gives them back as they were sent.
 */

/** How large one card may be; the workflow's limits (`WORKFLOW_LIMITS`) repeat these values. */
export const WEBHOOK_CARD_LIMITS = {
  /** Routes of one card: at most what all the cards of a workflow may hold together. */
  routes: 1_000,
  /** Parameters of one route (properties of its tool's input schema). */
  parameters: 100,
} as const;

const StringMap = (description: string) => Type.Record(Type.String(), Type.String(), { description });

export const WebhookParameterType = StringEnum(['string', 'number', 'boolean', 'array', 'object']);

/** A parameter the model fills; becomes one property of the tool's JSON Schema. */
export const WebhookParameter = Type.Object(
  {
    id: Type.Optional(Type.String()),
    name: Type.String({
      pattern: '^[a-z0-9_]+$',
      description: 'Lowercase letters, digits and underscores (the name of `{{name}}` placeholders and of the tool schema property).',
    }),
    type: Type.Optional(WebhookParameterType),
    required: Type.Optional(Type.Boolean({ description: "Enters the schema's `required` list; default true." })),
    description: NonBlankString({ description: 'What the parameter is (the model reads it).' }),
    howToObtain: Type.Optional(Type.String({ description: 'Placed in parentheses after the description.' })),
    example: Type.Optional(Type.String({ description: 'Appended as an example.' })),
    defaultValue: Type.Optional(Type.String({ description: 'Documented only: the runtime does not fill it in.' })),
    validValues: Type.Optional(Type.Array(Type.String(), { description: 'Documented only: not enforced.' })),
    in: Type.Optional(Type.String({ description: 'Accepted and ignored: placeholders decide where a value goes.' })),
  },
  { title: 'WebhookParameter' },
);
export type WebhookParameter = Static<typeof WebhookParameter>;

export const WebhookMethod = StringEnum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']);
export type WebhookMethod = Static<typeof WebhookMethod>;

/** One route of a card; each enabled route becomes one tool. */
export const WebhookRoute = Type.Object(
  {
    id: Type.Optional(Type.String()),
    name: NonBlankString({ description: 'Becomes the tool name after sanitization; unique across the workflow.' }),
    description: NonBlankString({ description: 'First part of the tool description.' }),
    whenToUse: NonBlankString({ description: 'Goes under `WHEN TO USE:` in the tool description.' }),
    method: Type.Optional(WebhookMethod),
    path: NonBlankString({ description: 'Joined to baseUrl; accepts `{{param}}` placeholders (values percent-encoded).' }),
    parameters: Type.Optional(Type.Array(WebhookParameter, { maxItems: WEBHOOK_CARD_LIMITS.parameters })),
    bodyTemplate: Type.Optional(
      Type.String({ description: 'JSON with `{{placeholders}}`; without it POST/PUT/PATCH send the arguments.' }),
    ),
    queryParams: Type.Optional(StringMap('Query values (may hold placeholders); an entry whose placeholder is unfilled is removed.')),
    headers: Type.Optional(StringMap('Headers of this route.')),
    responseDescription: Type.Optional(Type.String({ description: 'Goes under `RESPONSE:` in the tool description.' })),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true; false = not offered as a tool.' })),
    responseMapping: Type.Optional(StringMap('Output name -> JSONPath (`$.order.id`); only matched fields are returned.')),
    dependsOn: Type.Optional(Type.Array(Type.String())),
    triggers: Type.Optional(Type.Array(Type.String())),
    responseExample: Type.Optional(Type.Unknown({ description: 'Accepted and ignored.' })),
  },
  { title: 'WebhookRoute' },
);
export type WebhookRoute = Static<typeof WebhookRoute>;

/** Outbound authentication of a card, one setting for all routes. */
export const WebhookAuth = TaggedUnion(
  'type',
  [
    Type.Object({ type: Type.Literal('none') }),
    Type.Object({ type: Type.Literal('bearer'), token: Type.String() }),
    Type.Object({
      type: Type.Literal('api_key'),
      apiKey: Type.String(),
      apiKeyName: Type.String(),
      apiKeyLocation: Type.Optional(StringEnum(['header', 'query'])),
    }),
    Type.Object({ type: Type.Literal('basic'), username: Type.String(), password: Type.String() }),
    Type.Object({ type: Type.Literal('custom_header'), customHeaderName: Type.String(), customHeaderValue: Type.String() }),
  ],
  { title: 'WebhookAuth' },
);
export type WebhookAuth = Static<typeof WebhookAuth>;

export const WebhookCardConfig = Type.Object(
  {
    baseUrl: Type.Optional(Type.String({ description: 'API base URL; a trailing slash is removed before joining a route path.' })),
    description: Type.Optional(Type.String({ description: 'For editors of the card; never shown to the model.' })),
    auth: Type.Optional(WebhookAuth),
    defaultHeaders: Type.Optional(StringMap('Headers of every route.')),
    timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'Per-attempt deadline in milliseconds; default 30000.' })),
    retryOnError: Type.Optional(Type.Boolean({ description: 'Retry network failures (never HTTP >= 400); default true.' })),
    maxRetries: Type.Optional(Type.Integer({ minimum: 0, maximum: 10, description: 'Retries after the first attempt; default 2.' })),
    routes: Type.Optional(Type.Array(WebhookRoute, { maxItems: WEBHOOK_CARD_LIMITS.routes })),
    maxRequestsPerMinute: Type.Optional(
      Type.Number({ exclusiveMinimum: 0, description: 'Calls per minute for the card (sliding window).' }),
    ),
  },
  { title: 'WebhookCardConfig' },
);
export type WebhookCardConfig = Static<typeof WebhookCardConfig>;

/** The Webhook card: a name on the canvas and its configuration. */
export const WebhookCard = Type.Object(
  {
    name: Type.String({ minLength: 1, description: 'Card name on the canvas; does not affect tool names.' }),
    config: WebhookCardConfig,
  },
  { title: 'WebhookCard' },
);
export type WebhookCard = Static<typeof WebhookCard>;
