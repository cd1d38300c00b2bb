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
    // Read again (not the account the key check found): a view of money sees every call answered before it.
    handler: async ({ fathom, account }) => {
      const current = await fathom.accounts.retrieve(account.id);
      return { id: current.id, name: current.name, balance: current.balance };
    },
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
