import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { silentLogger } from '../internal/logger';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import { mcpServerSchema } from './schema';
import { McpSessions } from './sessions';
import { SqlMcpSessionsRepository } from './sessions-repository';

afterAll(closeTestPostgres);

const HOUR = 60 * 60 * 1000;

describe.each(testBackends())('MCP sessions on %s', (backend) => {
  async function setup() {
    const db = await openTestDatabase(backend, [accountsSchema, mcpServerSchema]);
    const accounts = new Accounts(db);
    const [account, other] = [await accounts.create({ name: 'a' }), await accounts.create({ name: 'b' })];
    let now = 1_000_000_000_000;
    const clock = { advance: (ms: number) => (now += ms) };
    const sessions = new McpSessions({ db, log: silentLogger, idleMs: 2 * HOUR, now: () => now });
    return { db, sessions, account, other, clock };
  }
  const start = { protocolVersion: '2025-06-18', clientName: 'test', clientVersion: '1.0' };

  it('opens a session only for its account and its endpoint, and ends it for good', async () => {
    const { sessions, account, other } = await setup();
    const id = await sessions.open(account.id, 'account', start);
    expect(id).toMatch(/^mcps_[0-9A-Za-z]{40}$/);
    expect(await sessions.isOpen(account.id, 'account', id)).toBe(true);
    expect(await sessions.isOpen(other.id, 'account', id)).toBe(false);
    expect(await sessions.isOpen(account.id, 'agent:agent_x', id)).toBe(false);
    expect(await sessions.end(other.id, 'account', id)).toBe(false);
    expect(await sessions.isOpen(account.id, 'account', id)).toBe(true);
    expect(await sessions.end(account.id, 'account', id)).toBe(true);
    expect(await sessions.isOpen(account.id, 'account', id)).toBe(false);
    expect(await sessions.end(account.id, 'account', id)).toBe(false);
  });

  it('ends a session left idle past its timeout, while one in use stays open', async () => {
    const { db, sessions, account, clock } = await setup();
    const idle = await sessions.open(account.id, 'account', start);
    const used = await sessions.open(account.id, 'account', start);
    for (let hour = 0; hour < 3; hour++) {
      clock.advance(HOUR);
      expect(await sessions.isOpen(account.id, 'account', used)).toBe(true);
    }
    expect(await sessions.isOpen(account.id, 'account', idle)).toBe(false);
    expect(await sessions.isOpen(account.id, 'account', used)).toBe(true);
    // Opening a session later sweeps the idle rows of every account.
    clock.advance(3 * HOUR);
    await sessions.open(account.id, 'account', start);
    expect(await new SqlMcpSessionsRepository(db).find(used, account.id, 'account')).toBeUndefined();
  });
});
