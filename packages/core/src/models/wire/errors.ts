import { type Static, Type } from '@sinclair/typebox';

/* `GET /v1/usage/errors`, Fathom's own: an account's requests answered with an error, per UTC day, status and code. */

const closed = { additionalProperties: false } as const;

const Day = (description: string) => Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', description });

export const UsageErrorListParams = Type.Object(
  {
    start_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the first one included.')),
    end_date: Type.Optional(Day('A day, YYYY-MM-DD (UTC): the last one included.')),
  },
  { title: 'UsageErrorListParams', ...closed },
);
export type UsageErrorListParams = Static<typeof UsageErrorListParams>;

/** How many of one account's requests of one day (UTC) were answered with one status and error code. */
export const UsageErrorRow = Type.Object(
  {
    date: Type.String({ description: '`YYYY-MM-DD`, UTC.' }),
    status: Type.Integer({ description: 'The HTTP status of the answers (400–599).' }),
    code: Type.Union([Type.String(), Type.Null()], {
      description:
        "The error's `code` (`invalid_request_error`, `rate_limit_exceeded`, `upstream_error`…); null when the answer named none.",
    }),
    requests: Type.Integer({ description: 'Requests answered so.' }),
  },
  { title: 'UsageErrorRow', ...closed },
);
export type UsageErrorRow = Static<typeof UsageErrorRow>;

export const UsageErrorsPage = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(UsageErrorRow) },
  { title: 'UsageErrorsPage', ...closed },
);
export type UsageErrorsPage = Static<typeof UsageErrorsPage>;
