import {
  DataTool,
  DataToolCatalog,
  ToolJobEnvelope,
  ToolJobInput,
  ToolJobInputs,
  ToolJobListParams,
  ToolJobsPage,
  ToolJobStarted,
} from '@fathom/core';
import { defineRoute, type Route } from '../route';

/** Data tools (spec "Data tools"): catalog (all or one tool), start a job (202), poll a job, list the account's jobs. */
export const toolsRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/tools',
    summary: 'List the data tools, each with its ceiling, input schema and whether it is available here.',
    operationId: 'listDataTools',
    schema: { response: DataToolCatalog },
    handler: ({ fathom }) => fathom.tools.list(),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tools/jobs',
    summary: "List the account's data-tool jobs (of one tool with `tool`).",
    operationId: 'listToolJobs',
    schema: { querystring: ToolJobListParams, response: ToolJobsPage },
    handler: ({ fathom, account, query }) => fathom.jobs.list(account.id, query),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tools/:tool',
    summary: "Retrieve one data tool's catalog entry.",
    operationId: 'getDataTool',
    schema: { response: DataTool },
    handler: ({ fathom, params }) => fathom.tools.retrieve(params.tool),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tools/jobs/:id',
    summary: 'Retrieve a data-tool job: its status, and once finished its cost and result.',
    operationId: 'getToolJob',
    schema: { response: ToolJobEnvelope },
    handler: async ({ fathom, account, params }) => ({ data: await fathom.jobs.retrieve(account.id, params.id) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/tools/:tool',
    summary: "Start a data-tool job: the tool's ceiling is reserved and the job queued; poll `poll_url` for its result.",
    operationId: 'createToolJob',
    status: 202,
    // The input is checked by core against the tool's own `input_schema` (catalog data); the document shows the ten.
    schema: { body: ToolJobInput, documentedBody: ToolJobInputs, response: ToolJobStarted },
    handler: async ({ fathom, account, params, body }) => {
      const job = await fathom.jobs.create(account.id, params.tool, body);
      return { data: { job_id: job.job_id, status: job.status, poll_url: job.poll_url, estimated_max_cost: job.estimated_max_cost } };
    },
  }),
];
