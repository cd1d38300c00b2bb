// Accounts, API keys and the money ledger: `fathom.accounts` (with `.keys`, `.ledger`) and their wire format.
export { Accounts } from './accounts';
export type { Ledger, ModelCallMoney, PendingMoney } from './accounts';
export { ApiKeys, hashApiKey, type KeyActor } from './api-keys';
export { checkPermission, checkWithin, levelFor, levelOf, type KeyGrant } from './key-rules';
export * from './wire/keys';
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
