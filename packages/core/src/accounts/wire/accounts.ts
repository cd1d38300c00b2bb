import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { ListPage, ListQuery, NonBlankString, Nullable, StringEnum } from '../../wire';
import { MAX_CREDIT_UNITS } from '../money';

/*
 * Accounts, API keys and the money ledger: `GET /v1/account` and its ledger (any account key), and the
 * admin API (`FATHOM_ADMIN_KEY`). Fathom's own operations; no OpenAI counterpart. Amounts are currency
 * units, kept in micro-units (at most 6 decimal places: checked by core).
 */

/** An account. */
export const Account = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('account'),
    name: Type.String(),
    balance: Type.Number({ description: 'Available balance in currency units (reservations already deducted).' }),
    created_at: Type.Integer(),
  },
  { title: 'Account', additionalProperties: false },
);
export type Account = Static<typeof Account>;

/** `GET /v1/account`: the caller's account and its balance. */
export const AccountBalance = Type.Object(
  { id: Type.String(), name: Type.String(), balance: Type.Number() },
  { title: 'AccountBalance', additionalProperties: false },
);
export type AccountBalance = Static<typeof AccountBalance>;

export const LedgerKind = StringEnum(['credit', 'reserve', 'charge', 'release']);
export type LedgerKind = Static<typeof LedgerKind>;

/** One movement of money. */
export const LedgerEntry = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('ledger.entry'),
    kind: LedgerKind,
    amount: Type.Number({ description: 'Signed, in currency units: credits and releases positive, reserves and charges negative.' }),
    ref: Nullable(Type.String({ description: 'What the money moved for (a job id…).' })),
    description: Nullable(Type.String()),
    created_at: Type.Integer(),
  },
  { title: 'LedgerEntry', additionalProperties: false },
);
export type LedgerEntry = Static<typeof LedgerEntry>;

export const LedgerListParams = ListQuery();
export type LedgerListParams = Static<typeof LedgerListParams>;

export const LedgerPage = ListPage(LedgerEntry);
export type LedgerPage = Static<typeof LedgerPage>;

/** An API key as an administrator sees it: never the key, only its last four characters. */
export const ApiKeyInfo = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('api_key'),
    hint: Type.String({ description: "`…` followed by the key's last four characters." }),
    created_at: Type.Integer(),
  },
  { title: 'ApiKeyInfo', additionalProperties: false },
);
export type ApiKeyInfo = Static<typeof ApiKeyInfo>;

/** An account with its keys (`GET /v1/admin/accounts`). */
export const AccountWithKeys = Type.Object(
  { ...Account.properties, keys: Type.Array(ApiKeyInfo) },
  { title: 'AccountWithKeys', additionalProperties: false },
);
export type AccountWithKeys = Static<typeof AccountWithKeys>;

export const AccountListParams = ListQuery();
export type AccountListParams = Static<typeof AccountListParams>;

export const AccountsPage = ListPage(AccountWithKeys);
export type AccountsPage = Static<typeof AccountsPage>;

export const AccountCreateParams = Type.Object(
  {
    name: NonBlankString({ maxLength: FIELD_LIMITS.name }),
    balance: Type.Optional(
      Type.Number({ minimum: 0, maximum: MAX_CREDIT_UNITS, description: `Initial balance, 0 to ${MAX_CREDIT_UNITS} (default 0).` }),
    ),
  },
  { title: 'AccountCreateParams', additionalProperties: false },
);
export type AccountCreateParams = Static<typeof AccountCreateParams>;

/** `POST /v1/admin/accounts`: the account and its first key, shown this once. */
export const AccountCreated = Type.Object(
  { id: Type.String(), name: Type.String(), balance: Type.Number(), api_key: Type.String() },
  { title: 'AccountCreated', additionalProperties: false },
);
export type AccountCreated = Static<typeof AccountCreated>;

/** `POST /v1/admin/accounts/{id}/keys`: a new key, shown this once (only its hash is kept). */
export const ApiKeyCreated = Type.Object(
  { id: Type.String(), api_key: Type.String() },
  { title: 'ApiKeyCreated', additionalProperties: false },
);
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

export const ApiKeyDeleted = Type.Object(
  { id: Type.String(), object: Type.Literal('api_key'), deleted: Type.Boolean() },
  { title: 'ApiKeyDeleted', additionalProperties: false },
);
export type ApiKeyDeleted = Static<typeof ApiKeyDeleted>;

export const AccountCreditParams = Type.Object(
  { amount: Type.Number({ exclusiveMinimum: 0, maximum: MAX_CREDIT_UNITS, description: 'Currency units to add.' }) },
  { title: 'AccountCreditParams', additionalProperties: false },
);
export type AccountCreditParams = Static<typeof AccountCreditParams>;

/** `POST /v1/admin/accounts/{id}/credit`: the new balance. */
export const AccountCredited = Type.Object(
  { id: Type.String(), balance: Type.Number() },
  { title: 'AccountCredited', additionalProperties: false },
);
export type AccountCredited = Static<typeof AccountCredited>;
