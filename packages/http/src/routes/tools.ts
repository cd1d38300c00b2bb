import { parseListQuery, type Fathom } from '@fathom/core';
import { defineRoute, type Route } from '../route';

type CatalogEntry = ReturnType<Fathom['jobs']['catalog']>[number];

const toCatalogEntry = ({ name, path, description, estimated_max_cost, input_schema, item_fields, available }: CatalogEntry) => ({
  object: 'tool',
  name,
  path,
  description,
  estimated_max_cost,
  input_schema,
  item_fields,
  available,
});

/** Data tools (spec "Data tools"): catalog (all or one tool), start a job (202), poll a job, list the account's jobs. */
export const toolsRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/tools',
    handler: ({ fathom }) => ({ object: 'list', data: fathom.jobs.catalog().map(toCatalogEntry) }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tools/jobs',
    handler: ({ fathom, account, query }) => {
      const { tool, ...rest } = query;
      return fathom.jobs.listJobs(account.id, parseListQuery(rest), typeof tool === 'string' && tool ? tool : undefined);
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tools/:tool',
    handler: ({ fathom, params }) => toCatalogEntry(fathom.jobs.catalogEntry(params.tool)),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/tools/jobs/:id',
    handler: async ({ fathom, account, params }) => ({ data: await fathom.jobs.getJob(account.id, params.id) }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/tools/:tool',
    status: 202,
    handler: async ({ fathom, account, params, body }) => {
      const job = await fathom.jobs.startJob(account.id, params.tool, body);
      return { data: { job_id: job.job_id, status: job.status, poll_url: job.poll_url, estimated_max_cost: job.estimated_max_cost } };
    },
  }),
];
