import type { FathomConfig } from '../config';
import type { Accounts } from './accounts';

export interface BootstrapResult {
  /** Set when a key was generated now; print it once, it is never shown again. */
  generatedKey?: string;
  accountId?: string;
}

/**
 * design.md's bootstrap: with `FATHOM_API_KEY`, make sure a default account owns that key;
 * without it and with no account at all, create a default account and return its new key.
 */
export function bootstrapAccounts(accounts: Accounts, config: Pick<FathomConfig, 'apiKey' | 'defaultBalance'>): BootstrapResult {
  if (config.apiKey) {
    const existing = accounts.authenticate(config.apiKey);
    if (existing) return { accountId: existing.id };
    const created = accounts.create({ name: 'default', balance: config.defaultBalance });
    accounts.deleteKey(created.keyId);
    accounts.createKey(created.account.id, config.apiKey);
    return { accountId: created.account.id };
  }
  if (accounts.count() > 0) return {};
  const created = accounts.create({ name: 'default', balance: config.defaultBalance });
  return { generatedKey: created.apiKey, accountId: created.account.id };
}
