import { NotFoundError, parseListQuery } from '@fathom/core';
import { defineRoute, type Route } from '../route';

/** The admin API (docs/operations.md); every route answers 401 unless FATHOM_ADMIN_KEY is set and presented. */
export const adminRoutes: Route[] = [
  defineRoute({
    // Every account with its balance and its keys' hints (never the keys); paginated like every list.
    method: 'GET',
    path: '/v1/admin/accounts',
    auth: 'admin',
    handler: async ({ fathom, query }) => await fathom.accounts.list(parseListQuery(query)),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts',
    auth: 'admin',
    schema: {
      body: {
        type: 'object',
        required: ['name'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, balance: { type: 'number', minimum: 0 } },
      },
    },
    handler: async ({ fathom, body }) => {
      const created = await fathom.accounts.create({ name: body.name, balance: body.balance ?? 0 });
      return { id: created.account.id, name: created.account.name, balance: created.account.balance, api_key: created.apiKey };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/keys',
    auth: 'admin',
    handler: ({ fathom, params }) => fathom.accounts.createKey(params.id),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/admin/keys/:keyId',
    auth: 'admin',
    handler: async ({ fathom, params }) => {
      if (!(await fathom.accounts.deleteKey(params.keyId))) throw new NotFoundError('key', params.keyId);
      return { id: params.keyId, object: 'api_key', deleted: true };
    },
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/credit',
    auth: 'admin',
    schema: {
      body: {
        type: 'object',
        required: ['amount'],
        additionalProperties: false,
        properties: { amount: { type: 'number' } },
      },
    },
    handler: async ({ fathom, params, body }) => {
      const account = await fathom.accounts.credit(params.id, body.amount, 'admin credit');
      return { id: account.id, balance: account.balance };
    },
  }),
];
