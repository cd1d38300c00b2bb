// API keys as objects: the caller's own (`/v1/account/keys`, family `keys`) and any account's (admin).
import {
  AdminApiKeyCreated,
  ApiKey,
  ApiKeyCreateParams,
  ApiKeyDeleted,
  ApiKeyListParams,
  ApiKeyRotateParams,
  ApiKeysPage,
  ApiKeyUpdateParams,
  ApiKeyWithValue,
} from '@fathom/core';
import { defineRoute, type Route } from '../route';

/** The caller's keys; a key manages only keys that grant no more than itself. */
export const keyRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/account/keys',
    summary: "The caller's API keys (never their secrets), with their limits and spend.",
    operationId: 'listAccountKeys',
    schema: { querystring: ApiKeyListParams, response: ApiKeysPage },
    handler: ({ fathom, account, query }) => fathom.accounts.keys.list(account.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/account/keys',
    summary: 'Create an API key; its secret (`value`) is shown this once.',
    operationId: 'createAccountKey',
    schema: { body: ApiKeyCreateParams, response: ApiKeyWithValue },
    handler: ({ fathom, account, body, request }) => fathom.accounts.keys.create(account.id, body, { key: request.apiKey }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/account/keys/:key_id',
    summary: 'An API key of the caller.',
    operationId: 'getAccountKey',
    schema: { response: ApiKey },
    handler: ({ fathom, account, params }) => fathom.accounts.keys.retrieve(account.id, params.key_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/account/keys/:key_id',
    summary: "Change an API key's name, permissions, models, budget, limits or expiry.",
    operationId: 'updateAccountKey',
    schema: { body: ApiKeyUpdateParams, response: ApiKey },
    handler: ({ fathom, account, params, body, request }) =>
      fathom.accounts.keys.update(account.id, params.key_id, body, { key: request.apiKey }),
  }),
  defineRoute({
    method: 'DELETE',
    path: '/v1/account/keys/:key_id',
    summary: 'Revoke an API key, on every server process at once.',
    operationId: 'deleteAccountKey',
    schema: { response: ApiKeyDeleted },
    handler: ({ fathom, account, params, request }) => fathom.accounts.keys.revoke(account.id, params.key_id, { key: request.apiKey }),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/account/keys/:key_id/rotate',
    summary: 'Give an API key a new secret (shown once); the old one works for `grace_period_seconds`.',
    operationId: 'rotateAccountKey',
    schema: { body: ApiKeyRotateParams, response: ApiKeyWithValue },
    handler: ({ fathom, account, params, body, request }) =>
      fathom.accounts.keys.rotate(account.id, params.key_id, body, { key: request.apiKey }),
  }),
];

/** Any account's keys (admin key). */
export const adminKeyRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/admin/accounts/:id/keys',
    auth: 'admin',
    summary: "An account's API keys.",
    operationId: 'listApiKeys',
    schema: { querystring: ApiKeyListParams, response: ApiKeysPage },
    handler: ({ fathom, params, query }) => fathom.accounts.keys.list(params.id, query),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/keys',
    auth: 'admin',
    summary: 'Issue an API key for an account (its secret shown once, as `value` and `api_key`).',
    operationId: 'createApiKey',
    schema: { body: ApiKeyCreateParams, response: AdminApiKeyCreated },
    handler: async ({ fathom, params, body }) => {
      const key = await fathom.accounts.keys.create(params.id, body);
      return { ...key, api_key: key.value };
    },
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/admin/accounts/:id/keys/:key_id',
    auth: 'admin',
    summary: "An account's API key.",
    operationId: 'getApiKey',
    schema: { response: ApiKey },
    handler: ({ fathom, params }) => fathom.accounts.keys.retrieve(params.id, params.key_id),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/keys/:key_id',
    auth: 'admin',
    summary: "Change an account's API key.",
    operationId: 'updateApiKey',
    schema: { body: ApiKeyUpdateParams, response: ApiKey },
    handler: ({ fathom, params, body }) => fathom.accounts.keys.update(params.id, params.key_id, body),
  }),
  defineRoute({
    method: 'POST',
    path: '/v1/admin/accounts/:id/keys/:key_id/rotate',
    auth: 'admin',
    summary: "Rotate an account's API key.",
    operationId: 'rotateApiKey',
    schema: { body: ApiKeyRotateParams, response: ApiKeyWithValue },
    handler: ({ fathom, params, body }) => fathom.accounts.keys.rotate(params.id, params.key_id, body),
  }),
];
