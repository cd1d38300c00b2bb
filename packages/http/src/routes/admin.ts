import {
  AccountCreated,
  AccountCreateParams,
  AccountCredited,
  AccountCreditParams,
  AccountListParams,
  AccountsPage,
  ApiKeyCreated,
  ApiKeyDeleted,
  Type,
} from '@fathom/core';
import { defineRoute, type Route } from '../route';

/** The admin API (docs/operations.md); every route answers 401 unless FATHOM_ADMIN_KEY is set and presented. */
export const adminRoutes: Route[] = [
  defineRoute({
    // Every account with its balance and its keys' hints (never the keys); paginated like every list.
    method: 'GET',
    path: '/v1/admin/accounts',
    auth: 'admin',
    summary: "List every account with its balance and its keys' hints.",
    operationId: 'listAccounts',
    schema: { querystring: AccountListParams, response: AccountsPage },
    handler: ({ fathom, query }) => fathom.accounts.list(query),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts',
    auth: 'admin',
    summary: 'Create an account with an initial balance and its first API key (shown once).',
    operationId: 'createAccount',
    schema: { body: AccountCreateParams, response: AccountCreated },
    handler: ({ fathom, body }) => fathom.accounts.create(body),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/keys',
    auth: 'admin',
    summary: 'Issue a new API key for an account (shown once).',
    operationId: 'createApiKey',
    schema: { body: Type.Object({}), response: ApiKeyCreated },
    handler: ({ fathom, params }) => fathom.accounts.keys.create(params.id),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/admin/keys/:keyId',
    auth: 'admin',
    summary: 'Revoke an API key, on every server process at once.',
    operationId: 'deleteApiKey',
    schema: { response: ApiKeyDeleted },
    handler: ({ fathom, params }) => fathom.accounts.keys.delete(params.keyId),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/credit',
    auth: 'admin',
    summary: "Add money to an account's balance.",
    operationId: 'creditAccount',
    schema: { body: AccountCreditParams, response: AccountCredited },
    handler: async ({ fathom, params, body }) => {
      const account = await fathom.accounts.credit(params.id, body, 'admin credit');
      return { id: account.id, balance: account.balance };
    },
  }),
];
