import type { Account } from './accounts';

/** An API key as an administrator sees it: never the key, only its last four characters. */
export interface ApiKeyInfo {
  id: string;
  object: 'api_key';
  /** `…` followed by the key's last four characters. */
  hint: string;
  created_at: number;
}

/** An account with its keys, for the admin views (`GET /v1/admin/accounts`). */
export interface AccountWithKeys extends Account {
  keys: ApiKeyInfo[];
}
