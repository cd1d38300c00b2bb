import { AccountBalance, LedgerListParams, LedgerPage } from '@fathom/core';
import { defineRoute, type Route } from '../route';

/** The caller's own account (any account key). */
export const accountRoutes: Route[] = [
  defineRoute({
    method: 'GET',
    path: '/v1/account',
    summary: "The caller's account and its balance.",
    operationId: 'getAccount',
    schema: { response: AccountBalance },
    handler: ({ account }) => ({ id: account.id, name: account.name, balance: account.balance }),
  }),
  defineRoute({
    method: 'GET',
    path: '/v1/account/ledger',
    summary: "The caller's money ledger, newest first.",
    operationId: 'listLedgerEntries',
    schema: { querystring: LedgerListParams, response: LedgerPage },
    handler: ({ fathom, account, query }) => fathom.accounts.ledger.list(account.id, query),
  }),
];
