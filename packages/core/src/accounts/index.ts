export { Accounts, hashApiKey, type Account, type LedgerEntry } from './accounts';
export { bootstrapAccounts, type BootstrapResult } from './bootstrap';
export { accountsSchema } from './schema';
export { toMicros, fromMicros, MICROS_PER_UNIT } from './money';
