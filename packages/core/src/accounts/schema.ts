import type { Schema } from '../db';

export const accountsSchema: Schema = {
  component: 'accounts',
  migrations: [
    `CREATE TABLE accounts (
      id TEXT PRIMARY KEY,
      name TEXT NOT NULL,
      balance_micros INTEGER NOT NULL DEFAULT 0 CHECK (balance_micros >= 0),
      created_at INTEGER NOT NULL
    );
    CREATE TABLE api_keys (
      id TEXT PRIMARY KEY,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      key_hash TEXT NOT NULL UNIQUE,
      key_hint TEXT NOT NULL,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX api_keys_account ON api_keys(account_id);
    CREATE TABLE ledger (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      kind TEXT NOT NULL CHECK (kind IN ('credit', 'reserve', 'charge', 'release')),
      amount_micros INTEGER NOT NULL,
      ref TEXT,
      description TEXT,
      created_at INTEGER NOT NULL
    );
    CREATE INDEX ledger_account ON ledger(account_id, id);
    CREATE UNIQUE INDEX ledger_once ON ledger(ref, kind) WHERE ref IS NOT NULL AND kind != 'credit';`,
    // settle() looks rows up by (ref, kind); the partial index above is not usable for it (SQLite cannot
    // prove kind = 'reserve' implies kind != 'credit'), so without this each settle scanned the account's ledger.
    `CREATE INDEX ledger_ref ON ledger(ref, kind);`,
  ],
};
