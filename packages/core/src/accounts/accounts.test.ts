import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db';
import { InsufficientBalanceError } from '../errors';
import { Accounts } from './accounts';
import { bootstrapAccounts } from './bootstrap';
import { accountsSchema } from './schema';

function setup() {
  const db = openDatabase({ schemas: [accountsSchema] });
  return { db, accounts: new Accounts(db) };
}

describe('Accounts ledger', () => {
  it('reserves atomically, settles once, and keeps the balance equal to the ledger sum', () => {
    const { accounts } = setup();
    const { account } = accounts.create({ name: 'a', balance: 10 });
    accounts.reserve(account.id, 6, 'job_1');
    expect(accounts.get(account.id).balance).toBe(4);
    expect(() => accounts.reserve(account.id, 6, 'job_2')).toThrow(InsufficientBalanceError);
    expect(accounts.get(account.id).balance).toBe(4);
    expect(accounts.settle(account.id, 'job_1', 0.8)).toBe(true);
    expect(accounts.settle(account.id, 'job_1', 0.8)).toBe(false);
    expect(accounts.get(account.id).balance).toBeCloseTo(9.2, 10);
    expect(accounts.ledgerSum(account.id)).toBeCloseTo(9.2, 10);
  });

  it('never charges more than was reserved and charges nothing on release', () => {
    const { accounts } = setup();
    const { account } = accounts.create({ name: 'a', balance: 3 });
    accounts.reserve(account.id, 2, 'job_a');
    accounts.settle(account.id, 'job_a', 50);
    expect(accounts.get(account.id).balance).toBe(1);
    accounts.reserve(account.id, 1, 'job_b');
    accounts.release(account.id, 'job_b');
    expect(accounts.get(account.id).balance).toBe(1);
    expect(accounts.ledgerSum(account.id)).toBe(1);
  });

  it('bootstraps a default account once and reuses FATHOM_API_KEY', () => {
    const { accounts } = setup();
    const first = bootstrapAccounts(accounts, { defaultBalance: 100 });
    expect(first.generatedKey).toMatch(/^fth_/);
    expect(bootstrapAccounts(accounts, { defaultBalance: 100 }).generatedKey).toBeUndefined();
    const withKey = bootstrapAccounts(accounts, { apiKey: 'fth_env', defaultBalance: 7 });
    expect(accounts.authenticate('fth_env')?.id).toBe(withKey.accountId);
    expect(bootstrapAccounts(accounts, { apiKey: 'fth_env', defaultBalance: 7 }).accountId).toBe(withKey.accountId);
  });
});
