import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { ErrorEnvelope, ListPage, ListQuery, Nullable, StringEnum, TaggedUnion } from '../../wire';

/* Runs of an agent's published version, their steps and the events of a streamed run. */

export const AgentRunCreateParams = Type.Object(
  {
    message: Type.String({ maxLength: FIELD_LIMITS.content, description: 'The user message; `{{variable}}` placeholders are filled.' }),
    variables: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Values of the start node's variables, by name." })),
    stream: Type.Optional(Type.Boolean({ description: 'Answer the run as server-sent events (`AgentRunStreamEvent`).' })),
  },
  { title: 'AgentRunCreateParams' },
);
export type AgentRunCreateParams = Static<typeof AgentRunCreateParams>;

export const AgentRunStatus = StringEnum(['in_progress', 'completed', 'failed']);
export type AgentRunStatus = Static<typeof AgentRunStatus>;

/** One stored step of a run: an agent node's answer, or one tool call with its result. */
export const AgentRunStep = TaggedUnion(
  'type',
  [
    Type.Object(
      { id: Type.String(), type: Type.Literal('message'), node_id: Type.String(), content: Type.String() },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        id: Type.String(),
        type: Type.Literal('tool_call'),
        node_id: Type.String(),
        call_id: Type.String(),
        tool: Type.String(),
        input: Type.Unknown({ description: 'The arguments the model chose (never the card configuration).' }),
        output: Type.String(),
      },
      { additionalProperties: false },
    ),
  ],
  { title: 'AgentRunStep' },
);
export type AgentRunStep = Static<typeof AgentRunStep>;

const runFields = {
  id: Type.String(),
  object: Type.Literal('agent.run'),
  agent_id: Type.String(),
  version: Type.Integer({ description: 'The published version the run executes.' }),
  status: AgentRunStatus,
  message: Type.String(),
  variables: Type.Record(Type.String(), Type.Unknown()),
  output: Nullable(Type.String()),
  error: Nullable(Type.String()),
  created_at: Type.Integer(),
  completed_at: Nullable(Type.Integer()),
};

/** A run as listed (`GET /v1/agents/{id}/runs`): without its steps. */
export const AgentRunSummary = Type.Object(runFields, { title: 'AgentRunSummary', additionalProperties: false });
export type AgentRunSummary = Static<typeof AgentRunSummary>;

/** A run with its steps. */
export const AgentRun = Type.Object({ ...runFields, steps: Type.Array(AgentRunStep) }, { title: 'AgentRun', additionalProperties: false });
export type AgentRun = Static<typeof AgentRun>;

/** `POST /v1/agents/{id}/run` (without `stream`) and `GET /v1/agents/{id}/runs/{run_id}`: `{run}`. */
export const AgentRunEnvelope = Type.Object({ run: AgentRun }, { title: 'AgentRunEnvelope', additionalProperties: false });

export const AgentRunListParams = ListQuery();
export type AgentRunListParams = Static<typeof AgentRunListParams>;

export const AgentRunsPage = ListPage(AgentRunSummary);
export type AgentRunsPage = Static<typeof AgentRunsPage>;

const closed = <T extends Parameters<typeof Type.Object>[0]>(properties: T) => Type.Object(properties, { additionalProperties: false });

/**
 * One server-sent event of a streamed run (`stream: true`): `event: <event>` and `data: <data>`. A run
 * starts with `run.started` and ends with `run.completed` or `run.failed`; each route call is a `tool_use`
 * (the arguments the model chose, never the card configuration) then its `tool_result`. `error` ends a
 * stream that failed after it started.
 */
export const AgentRunStreamEvent = TaggedUnion(
  'event',
  [
    closed({
      event: Type.Literal('run.started'),
      data: closed({
        run: closed({ id: Type.String(), agent_id: Type.String(), version: Type.Integer(), status: Type.Literal('in_progress') }),
      }),
    }),
    closed({ event: Type.Literal('message.delta'), data: closed({ content: Type.String(), node_id: Type.String() }) }),
    closed({
      event: Type.Literal('tool_use'),
      data: closed({ id: Type.String(), tool: Type.String(), input: Type.Unknown(), node_id: Type.String() }),
    }),
    closed({
      event: Type.Literal('tool_result'),
      data: closed({ id: Type.String(), tool: Type.String(), output: Type.String(), node_id: Type.String() }),
    }),
    closed({ event: Type.Literal('run.completed'), data: closed({ run_id: Type.String(), output: Type.String() }) }),
    closed({ event: Type.Literal('run.failed'), data: closed({ run_id: Type.String(), error: Type.String() }) }),
    closed({ event: Type.Literal('error'), data: ErrorEnvelope }),
  ],
  { title: 'AgentRunStreamEvent' },
);
export type AgentRunStreamEvent = Static<typeof AgentRunStreamEvent>;
