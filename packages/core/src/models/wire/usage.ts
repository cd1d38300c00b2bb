import { type Static, Type } from '@sinclair/typebox';

/* `GET /v1/usage`, Fathom's own: an account's token usage per UTC day and model. */

const closed = { additionalProperties: false } as const;

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

export const UsageListParams = Type.Object(
  {
    start_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the first one included.')),
    end_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the last one included.')),
    model: Type.Optional(Type.String({ description: 'Only this model (`<vendor>/<model>`, or the embedder id).' })),
    group_by: Type.Optional(
      Type.String({
        pattern: '^(day|model|key|api)(,(day|model|key|api))*$',
        description:
          'Comma-separated `day`, `model`, `key`, `api`: answer the calls grouped so, with their cost (`UsageGroupsPage`). ' +
          'Without it (and without start_time/end_time) the answer is the daily token counts (`UsagePage`).',
      }),
    ),
    start_time: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds, included (grouped view; default 30 days ago).' })),
    end_time: Type.Optional(Type.Integer({ minimum: 0, description: 'Unix seconds, excluded (grouped view; default now).' })),
  },
  { title: 'UsageListParams' },
);
export type UsageListParams = Static<typeof UsageListParams>;

/** Token usage of one account for one day (UTC) and model. */
export const UsageRow = Type.Object(
  {
    date: Type.String({ description: '`YYYY-MM-DD`, UTC.' }),
    model: Type.String(),
    requests: Type.Integer(),
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
  },
  { title: 'UsageRow', ...closed },
);
export type UsageRow = Static<typeof UsageRow>;

export const UsagePage = Type.Object({ object: Type.Literal('list'), data: Type.Array(UsageRow) }, { title: 'UsagePage', ...closed });
export type UsagePage = Static<typeof UsagePage>;

/** One group of `GET /v1/usage?group_by=…`: the calls of a day, model, key and/or API, and what they cost. */
export const UsageGroup = Type.Object(
  {
    day: Type.Optional(Type.String({ description: '`YYYY-MM-DD`, UTC.' })),
    model: Type.Optional(Type.String()),
    key_id: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'null: calls made by background work of no key.' })),
    key_name: Type.Optional(
      Type.Union([Type.String(), Type.Null()], { description: "Grouped by key: the key's name (null: none, or the key was revoked)." }),
    ),
    key_redacted_value: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: "Grouped by key: `fth_…` and the key's last four characters, never the secret (null: no key, or revoked).",
      }),
    ),
    api: Type.Optional(Type.String({ description: 'The resource family the calls came through (`models`, `responses`, `assistants`…).' })),
    requests: Type.Integer(),
    prompt_tokens: Type.Integer(),
    completion_tokens: Type.Integer(),
    total_tokens: Type.Integer(),
    cost: Type.Number({ description: 'Charged, in currency units.' }),
  },
  { title: 'UsageGroup', ...closed },
);
export type UsageGroup = Static<typeof UsageGroup>;

export const UsageGroupsPage = Type.Object(
  {
    object: Type.Literal('list'),
    start_time: Type.Integer(),
    end_time: Type.Integer(),
    group_by: Type.Array(Type.String()),
    data: Type.Array(UsageGroup),
  },
  { title: 'UsageGroupsPage', ...closed },
);
export type UsageGroupsPage = Static<typeof UsageGroupsPage>;
