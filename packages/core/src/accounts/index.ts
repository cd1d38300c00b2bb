export { Accounts, hashApiKey, type Account, type LedgerEntry } from './accounts';
export type { AccountWithKeys, ApiKeyInfo } from './account-directory';
export { bootstrapAccounts, type BootstrapResult } from './bootstrap';
export { accountsSchema } from './schema';
export { toMicros, fromMicros, MICROS_PER_UNIT } from './money';
