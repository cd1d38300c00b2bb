import { type Static, Type } from '@sinclair/typebox';

/* `GET /v1/usage/latency`, Fathom's own: how long an account's model calls took, per UTC day and model. */

const closed = { additionalProperties: false } as const;

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

export const LatencyListParams = Type.Object(
  {
    start_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the first one included.')),
    end_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the last one included.')),
    model: Type.Optional(Type.String({ description: 'Only this model (`<vendor>/<model>`).' })),
  },
  { title: 'LatencyListParams', ...closed },
);
export type LatencyListParams = Static<typeof LatencyListParams>;

/** The latency of one account's answered chat model calls for one day (UTC) and model. */
export const LatencyRow = Type.Object(
  {
    date: Type.String({ description: '`YYYY-MM-DD`, UTC.' }),
    model: Type.String(),
    requests: Type.Integer({ description: 'Answered calls measured.' }),
    p50_ms: Type.Number({ description: 'Median duration of a call (request sent to last token), ms; within 5% (log buckets).' }),
    p95_ms: Type.Number({ description: '95th percentile duration, ms; within 5%.' }),
  },
  { title: 'LatencyRow', ...closed },
);
export type LatencyRow = Static<typeof LatencyRow>;

export const LatencyPage = Type.Object({ object: Type.Literal('list'), data: Type.Array(LatencyRow) }, { title: 'LatencyPage', ...closed });
export type LatencyPage = Static<typeof LatencyPage>;
