import { afterAll, describe, expect, it } from 'vitest';
import { InsufficientBalanceError, InvalidRequestError } from '../errors';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { Accounts } from './accounts';
import { bootstrapAccounts } from './bootstrap';
import { accountsSchema } from './schema';

afterAll(closeTestPostgres);

describe.each(testBackends())('Accounts on %s', (backend) => {
  async function setup() {
    const db = await openTestDatabase(backend, [accountsSchema]);
    return { db, accounts: new Accounts(db) };
  }

  it('reserves atomically, settles once, and keeps the balance equal to the ledger sum', async () => {
    const { db, accounts } = await setup();
    const account = await accounts.create({ name: 'a', balance: 10 });
    await accounts.reserve(account.id, 6, 'job_1');
    expect((await accounts.retrieve(account.id)).balance).toBe(4);
    await expect(accounts.reserve(account.id, 6, 'job_2')).rejects.toThrow(InsufficientBalanceError);
    expect((await accounts.retrieve(account.id)).balance).toBe(4);
    expect(await accounts.settle(account.id, 'job_1', 0.8)).toBe(true);
    expect(await accounts.settle(account.id, 'job_1', 0.8)).toBe(false);
    expect((await accounts.retrieve(account.id)).balance).toBeCloseTo(9.2, 10);
    expect(await accounts.ledgerSum(account.id)).toBeCloseTo(9.2, 10);
    await db.close();
  });

  it('never charges more than was reserved and charges nothing on release', async () => {
    const { db, accounts } = await setup();
    const account = await accounts.create({ name: 'a', balance: 3 });
    await accounts.reserve(account.id, 2, 'job_a');
    await accounts.settle(account.id, 'job_a', 50);
    expect((await accounts.retrieve(account.id)).balance).toBe(1);
    await accounts.reserve(account.id, 1, 'job_b');
    await accounts.release(account.id, 'job_b');
    expect((await accounts.retrieve(account.id)).balance).toBe(1);
    expect(await accounts.ledgerSum(account.id)).toBe(1);
    await db.close();
  });

  it('accepts at most as many concurrent reservations as the balance covers', async () => {
    const { db, accounts } = await setup();
    const account = await accounts.create({ name: 'a', balance: 5 });
    const results = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => accounts.reserve(account.id, 1, `job_${i}`)));
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(5);
    expect((await accounts.retrieve(account.id)).balance).toBe(0);
    expect(await accounts.ledgerSum(account.id)).toBe(0);
    await db.close();
  });

  it('refuses credits finer than a micro-unit or past what a balance holds (the route schema refuses other types and ranges)', async () => {
    const { db, accounts } = await setup();
    const account = await accounts.create({ name: 'a' });
    for (const amount of [0.0000001, 1.0000005]) {
      await expect(accounts.credit(account.id, { amount })).rejects.toThrow(InvalidRequestError);
    }
    // Amounts that round to zero micro-units would answer success and change nothing.
    for (const amount of [1e-9, 1e-10, 4e-7, Number.MIN_VALUE]) {
      await expect(accounts.credit(account.id, { amount })).rejects.toMatchObject({ param: 'amount', status: 400 });
      await expect(accounts.create({ name: 'b', balance: amount })).rejects.toMatchObject({ param: 'balance', status: 400 });
    }
    expect((await accounts.retrieve(account.id)).balance).toBe(0);
    expect((await accounts.credit(account.id, { amount: 0.000001 })).balance).toBe(0.000001);
    expect((await accounts.credit(account.id, { amount: 1_000_000_000 })).balance).toBe(1_000_000_000.000001);
    expect(await accounts.ledgerSum(account.id)).toBe(1_000_000_000.000001);
    // 9,007,199,254.740991 units is the largest balance the ledger's integer micro-units hold.
    for (let i = 0; i < 8; i++) await accounts.credit(account.id, { amount: 1_000_000_000 });
    await expect(accounts.credit(account.id, { amount: 1_000_000_000 })).rejects.toMatchObject({ param: 'amount', status: 400 });
    expect(await accounts.ledgerSum(account.id)).toBe((await accounts.retrieve(account.id)).balance);
    await db.close();
  });

  it('pages through the ledger with after and before instead of repeating page 1', async () => {
    const { db, accounts } = await setup();
    const account = await accounts.create({ name: 'a', balance: 100 });
    for (let i = 0; i < 6; i++) await accounts.reserve(account.id, 1, `job_${i}`);
    const seen: string[] = [];
    let page = await accounts.ledger.list(account.id, { limit: 3 });
    seen.push(...page.data.map((entry) => entry.id));
    while (page.has_more) {
      page = await accounts.ledger.list(account.id, { limit: 3, after: page.last_id! });
      seen.push(...page.data.map((entry) => entry.id));
    }
    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    const ascending = await accounts.ledger.list(account.id, { order: 'asc', limit: 2, after: seen[6] });
    expect(ascending.data.map((entry) => entry.id)).toEqual([seen[5], seen[4]]);
    await db.close();
  });

  it('bootstraps a default account once and reuses FATHOM_API_KEY', async () => {
    const { db, accounts } = await setup();
    const first = await bootstrapAccounts(accounts, { defaultBalance: 100 });
    expect(first.generatedKey).toMatch(/^fth_/);
    expect((await bootstrapAccounts(accounts, { defaultBalance: 100 })).generatedKey).toBeUndefined();
    const withKey = await bootstrapAccounts(accounts, { apiKey: 'fth_env', defaultBalance: 7 });
    expect((await accounts.authenticate('fth_env'))?.id).toBe(withKey.accountId);
    expect((await bootstrapAccounts(accounts, { apiKey: 'fth_env', defaultBalance: 7 })).accountId).toBe(withKey.accountId);
    await db.close();
  });

  it('bootstraps FATHOM_API_KEY once when two nodes start together, leaving no second account behind', async () => {
    const { db, accounts } = await setup();
    const config = { apiKey: 'fth_shared', defaultBalance: 5 };
    const [first, second] = await Promise.all([bootstrapAccounts(accounts, config), bootstrapAccounts(accounts, config)]);
    expect(second.accountId).toBe(first.accountId);
    expect((await accounts.authenticate('fth_shared'))?.id).toBe(first.accountId);
    expect(await accounts.count()).toBe(1);
    await db.close();
  });
});
