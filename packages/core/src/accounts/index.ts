// Accounts, API keys and the money ledger: `fathom.accounts` (with `.keys`, `.ledger`) and their wire format.
export { Accounts, hashApiKey } from './accounts';
export type { ApiKeys, Ledger } from './accounts';
export { SqlAccountsRepository, type AccountsRepository, type AccountRow, type LedgerRow } from './accounts-repository';
export { bootstrapAccounts, type BootstrapResult } from './bootstrap';
export { accountsSchema } from './schema';
export { toMicros, fromMicros, MICROS_PER_UNIT, MAX_CREDIT_UNITS } from './money';
export {
  Account,
  AccountBalance,
  AccountCreated,
  AccountCreateParams,
  AccountCreditParams,
  AccountCredited,
  AccountListParams,
  AccountsPage,
  AccountWithKeys,
  ApiKeyCreated,
  ApiKeyDeleted,
  ApiKeyInfo,
  LedgerEntry,
  LedgerKind,
  LedgerListParams,
  LedgerPage,
} from './wire/accounts';
