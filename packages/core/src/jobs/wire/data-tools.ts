import { type Static, Type } from '@sinclair/typebox';
import { ListPage, ListQuery, Nullable, StringEnum } from '../../wire';
import { TOOL_CATALOG } from '../catalog';

/*
 * The data tools (spec "Data tools"): the catalog, the start of a job and the job itself. Fathom's own
 * operations; no OpenAI counterpart. Each tool's input is declared by its catalog entry (`input_schema`,
 * data that core validates a start with), so the start route takes any JSON object and the OpenAPI
 * document shows the ten inputs (`ToolInput`).
 */

/** One entry of the catalog (`GET /v1/tools`, `GET /v1/tools/{tool}`). */
export const DataTool = Type.Object(
  {
    object: Type.Literal('tool'),
    name: Type.String(),
    path: Type.String({ description: '`/v1/tools/<name>`: POST the input there to start a job.' }),
    description: Type.String(),
    estimated_max_cost: Type.Number({ description: 'The ceiling reserved before a job runs, in currency units.' }),
    input_schema: Type.Record(Type.String(), Type.Unknown(), {
      description: "The JSON Schema of the tool's input (closed, with types, required fields, defaults and bounds).",
    }),
    item_fields: Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Fields of the result items beyond `type` and `value`, per item type.',
    }),
    available: Type.Boolean({ description: 'False when the installation has no source configured for the tool (a start answers 503).' }),
  },
  { title: 'DataTool', additionalProperties: false },
);
export type DataTool = Static<typeof DataTool>;

/** `GET /v1/tools`: the whole catalog, in one list. */
export const DataToolCatalog = Type.Object(
  { object: Type.Literal('list'), data: Type.Array(DataTool) },
  { title: 'DataToolCatalog', additionalProperties: false },
);
export type DataToolCatalog = Static<typeof DataToolCatalog>;

/** The input of a job: a JSON object following the tool's `input_schema` (validated by core against it). */
export const ToolJobInput = Type.Record(Type.String(), Type.Unknown(), { title: 'ToolJobInput' });
export type ToolJobInput = Static<typeof ToolJobInput>;

const pascal = (name: string) => name.replace(/(^|-)([a-z])/g, (_whole, _dash, letter: string) => letter.toUpperCase());

/**
 * The inputs of the ten tools, for the OpenAPI document only: one schema per tool, titled
 * `<Tool>ToolInput`. The route checks nothing with it (the tool is in the path, not the body).
 */
export const ToolJobInputs = Type.Unsafe<ToolJobInput>({
  description: "The tool's input, as its catalog entry's `input_schema` declares it.",
  oneOf: TOOL_CATALOG.map((tool) => ({
    ...tool.input_schema,
    title: `${pascal(tool.name)}ToolInput`,
    description: `Input of ${tool.path}.`,
  })),
});

export const JobStatus = StringEnum(['queued', 'running', 'succeeded', 'failed']);
export type JobStatus = Static<typeof JobStatus>;

/** One result row of a data tool: `type` and `value` plus the fields of the tool's `item_fields`. */
export const ToolItem = Type.Object({ type: Type.String(), value: Type.String() }, { title: 'ToolItem' });
export type ToolItem = Static<typeof ToolItem> & { [field: string]: unknown };

/** A job (`GET /v1/tools/jobs/{id}`). */
export const ToolJob = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('tool.job'),
    job_id: Type.String(),
    tool: Type.String(),
    status: JobStatus,
    cached: Type.Boolean({ description: 'True when a recent identical search was served from cache (no provider cost).' }),
    estimated_max_cost: Type.Number(),
    cost: Nullable(Type.Number({ description: 'The billed cost, once `succeeded`.' })),
    result: Nullable(
      Type.Object(
        { items: Type.Array(ToolItem) },
        { description: 'Once `succeeded`: the items, and facts about the run some tools add (e.g. per-site crawl status).' },
      ),
    ),
    error: Nullable(Type.Object({ code: Type.String(), message: Type.String() }, { additionalProperties: false })),
    poll_url: Type.String({ description: '`/v1/tools/jobs/<job_id>`.' }),
    created_at: Type.Integer(),
    finished_at: Nullable(Type.Integer()),
    request_id: Nullable(
      Type.String({ description: 'The `x-request-id` of the request that started the job: its log lines and trace carry the same id.' }),
    ),
  },
  { title: 'ToolJob', additionalProperties: false },
);
export type ToolJob = Omit<Static<typeof ToolJob>, 'result'> & { result: { items: ToolItem[]; [key: string]: unknown } | null };

/** `GET /v1/tools/jobs/{id}`: `{data: job}`. */
export const ToolJobEnvelope = Type.Object({ data: ToolJob }, { title: 'ToolJobEnvelope', additionalProperties: false });

/** `POST /v1/tools/{tool}` (202): where to poll the job just queued. */
export const ToolJobStarted = Type.Object(
  {
    data: Type.Object(
      { job_id: Type.String(), status: JobStatus, poll_url: Type.String(), estimated_max_cost: Type.Number() },
      { additionalProperties: false },
    ),
  },
  { title: 'ToolJobStarted', additionalProperties: false },
);
export type ToolJobStarted = Static<typeof ToolJobStarted>;

export const ToolJobListParams = ListQuery({ tool: Type.Optional(Type.String({ description: "Only this tool's jobs." })) });
export type ToolJobListParams = Static<typeof ToolJobListParams>;

export const ToolJobsPage = ListPage(ToolJob);
export type ToolJobsPage = Omit<Static<typeof ToolJobsPage>, 'data'> & { data: ToolJob[] };
