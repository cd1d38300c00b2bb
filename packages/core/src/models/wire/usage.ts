import { type Static, Type } from '@sinclair/typebox';

/* `GET /v1/usage`, Fathom's own: an account's token usage per UTC day and model. */

const closed = { additionalProperties: false } as const;

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

export const UsageListParams = Type.Object(
  {
    start_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the first one included.')),
    end_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the last one included.')),
    model: Type.Optional(Type.String({ description: 'Only this model (`<vendor>/<model>`, or the embedder id).' })),
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
