export { Accounts, hashApiKey, type Account, type LedgerEntry } from './accounts';
export { SqlAccountsRepository, type AccountsRepository, type AccountRow, type LedgerRow, type LedgerKind } from './accounts-repository';
export { bootstrapAccounts, type BootstrapResult } from './bootstrap';
export { accountsSchema } from './schema';
export { toMicros, fromMicros, parseAmount, MICROS_PER_UNIT, MAX_CREDIT_UNITS } from './money';
export type { AccountWithKeys, ApiKeyInfo } from './account-directory';
