import { parseListQuery } from '@fathom/core';
import { defineRoute, type Route } from '../route';

export const accountRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/account',
    handler: ({ account }) => ({ id: account.id, name: account.name, balance: account.balance }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/account/ledger',
    handler: ({ fathom, account, query }) => fathom.accounts.ledger(account.id, parseListQuery(query)),
  }),
];
