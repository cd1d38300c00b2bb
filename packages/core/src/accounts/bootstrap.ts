import type { FathomConfig } from '../config';
import { isUniqueViolation } from '../storage';
import type { Accounts } from './accounts';

export interface BootstrapResult {
  /** Set when a key was generated now; print it once, it is never shown again. */
  generatedKey?: string;
  accountId?: string;
}

/**
 * The start-up bootstrap: with `FATHOM_API_KEY`, make sure a default account owns that key; without
 * it and with no account at all, create a default account and return its new key.
 */
export async function bootstrapAccounts(
  accounts: Accounts,
  config: Pick<FathomConfig, 'apiKey' | 'defaultBalance'>,
): Promise<BootstrapResult> {
  if (config.apiKey) {
    const existing = await accounts.authenticate(config.apiKey);
    if (existing) return { accountId: existing.id };
    try {
      // The account and its key are one transaction: a node that loses the race below leaves nothing behind.
      const created = await accounts.create({ name: 'default', balance: config.defaultBalance }, { apiKey: config.apiKey });
      return { accountId: created.id };
    } catch (error) {
      // Another node sharing the database bootstrapped the same key a moment ago: use its account.
      const winner = isUniqueViolation(error) ? await accounts.authenticate(config.apiKey) : null;
      if (!winner) throw error;
      return { accountId: winner.id };
    }
  }
  if ((await accounts.count()) > 0) return {};
  const created = await accounts.create({ name: 'default', balance: config.defaultBalance });
  return { generatedKey: created.api_key, accountId: created.id };
}
