import { InvalidRequestError, NotFoundError } from '../errors';
import { newId, nowSeconds, randomToken } from '../internal/ids';
import type { ListQuery } from '../internal/pagination';
import { checkWithin, durationSeconds, type KeyGrant } from './key-rules';
import type { KeyRow, KeySettings, KeysRepository } from './keys-repository';
import { checkAmount, fromMicros, toMicros } from './money';
import type { ApiKeyDeleted } from './wire/accounts';
import type {
  ApiKey,
  ApiKeyCreateParams,
  ApiKeyRotateParams,
  ApiKeysPage,
  ApiKeyUpdateParams,
  ApiKeyWithValue,
  KeyPermissions,
} from './wire/keys';
import { createHash } from 'node:crypto';

/**
 * SHA-256 of a key. Keys are `fth_` plus 40 random base62 characters (about 238 bits), so a fast hash
 * is the right tool: there is nothing to stretch.
 */
export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

/** Who manages a key: the admin (no limits), or a key of the account, which cannot grant more than itself. */
export interface KeyActor {
  key?: KeyGrant;
}

/**
 * `fathom.accounts.keys`: an account's API keys as objects — permissions per resource family, a model
 * allow-list, a budget window, rate limits, expiry and rotation with a grace period. Secrets are stored
 * as SHA-256 hashes and shown once (create, rotate). A key managing keys (`actor.key`) can never make
 * or change one into more than itself.
 */
export class ApiKeys {
  readonly #repository: KeysRepository;
  readonly #accountExists: (accountId: string) => Promise<void>;
  readonly #now: () => number;

  constructor(repository: KeysRepository, accountExists: (accountId: string) => Promise<void>, now: () => number = nowSeconds) {
    this.#repository = repository;
    this.#accountExists = accountExists;
    this.#now = now;
  }

  /** Issues a key; its secret (`value`) is answered this once. `options.apiKey` issues that secret (the bootstrap's). */
  async create(
    accountId: string,
    params: ApiKeyCreateParams = {},
    actor: KeyActor = {},
    options: { apiKey?: string } = {},
  ): Promise<ApiKeyWithValue> {
    await this.#accountExists(accountId);
    const settings = this.#settings(params, {});
    if (actor.key) checkWithin(grantOf(settings), actor.key);
    const value = options.apiKey ?? `fth_${randomToken(40)}`;
    const id = newId('key_');
    await this.#repository.insert({
      id,
      accountId,
      keyHash: hashApiKey(value),
      keyHint: value.slice(-4),
      createdAt: this.#now(),
      settings,
    });
    return { ...(await this.retrieve(accountId, id)), value };
  }

  async retrieve(accountId: string, keyId: string): Promise<ApiKey> {
    const row = await this.#repository.get(accountId, keyId);
    if (!row) throw new NotFoundError('API key', keyId);
    return toApiKey(row, this.#now());
  }

  /** The name and redacted value of the account's keys among `ids` (revoked keys, and other accounts' keys, are left out). */
  async labels(accountId: string, ids: readonly string[]): Promise<Map<string, { name: string | null; redacted_value: string }>> {
    const rows = await this.#repository.labels(accountId, ids);
    return new Map(rows.map((row) => [row.id, { name: row.name, redacted_value: redactedValue(row.key_hint) }]));
  }

  async list(accountId: string, query: ListQuery = {}): Promise<ApiKeysPage> {
    await this.#accountExists(accountId);
    const page = await this.#repository.page(accountId, query);
    const now = this.#now();
    return { ...page, data: page.data.map((row) => toApiKey(row, now)) };
  }

  /** Changes a key's settings (fields not given stay); a new budget or window starts the window again. */
  async update(accountId: string, keyId: string, params: ApiKeyUpdateParams, actor: KeyActor = {}): Promise<ApiKey> {
    const row = await this.#repository.get(accountId, keyId);
    if (!row) throw new NotFoundError('API key', keyId);
    const merged = this.#settings(params, row);
    if (actor.key) {
      checkWithin(grantOf(row), actor.key);
      checkWithin(grantOf(merged), actor.key);
    }
    const restart = params.budget_duration !== undefined || params.max_budget !== undefined;
    await this.#repository.update(accountId, keyId, { ...merged, ...(restart ? { spend_micros: 0 } : {}) });
    return this.retrieve(accountId, keyId);
  }

  /** A new secret for the key, answered once; the old one keeps working `grace_period_seconds` (default 0). */
  async rotate(accountId: string, keyId: string, params: ApiKeyRotateParams = {}, actor: KeyActor = {}): Promise<ApiKeyWithValue> {
    const row = await this.#repository.get(accountId, keyId);
    if (!row) throw new NotFoundError('API key', keyId);
    if (actor.key) checkWithin(grantOf(row), actor.key);
    const grace = params.grace_period_seconds ?? 0;
    const previous = grace > 0 ? await this.#repository.hashOf(keyId) : undefined;
    const value = `fth_${randomToken(40)}`;
    await this.#repository.rotate(
      accountId,
      keyId,
      hashApiKey(value),
      value.slice(-4),
      previous ?? null,
      previous ? this.#now() + grace : null,
    );
    return { ...(await this.retrieve(accountId, keyId)), value };
  }

  /** Revokes an account's key, on every process at once (keys are looked up per request). */
  async revoke(accountId: string, keyId: string, actor: KeyActor = {}): Promise<ApiKeyDeleted> {
    const row = await this.#repository.get(accountId, keyId);
    if (!row) throw new NotFoundError('API key', keyId);
    if (actor.key) checkWithin(grantOf(row), actor.key);
    await this.#repository.delete(accountId, keyId);
    return { id: keyId, object: 'api_key', deleted: true };
  }

  /** Revokes a key of any account (admin), on every process at once; 404 for an unknown one. */
  async delete(keyId: string): Promise<ApiKeyDeleted> {
    if (!(await this.#repository.deleteAny(keyId))) throw new NotFoundError('key', keyId);
    return { id: keyId, object: 'api_key', deleted: true };
  }

  /** The stored settings of a create or an update over `current`. */
  #settings(params: ApiKeyUpdateParams, current: Partial<KeyRow>): KeySettings {
    const pick = <K extends keyof ApiKeyUpdateParams>(name: K, fallback: ApiKeyUpdateParams[K]) =>
      params[name] !== undefined ? params[name] : fallback;
    const maxBudget = pick('max_budget', current.max_budget_micros == null ? null : fromMicros(current.max_budget_micros));
    if (maxBudget != null) checkAmount(maxBudget, 'max_budget');
    const duration = pick('budget_duration', (current.budget_duration as ApiKeyUpdateParams['budget_duration']) ?? null) ?? null;
    const seconds = durationSeconds(duration);
    const windowChanged = params.budget_duration !== undefined || params.max_budget !== undefined;
    const expiresAt = pick('expires_at', current.expires_at ?? null) ?? null;
    if (params.expires_at != null && params.expires_at <= this.#now()) {
      throw new InvalidRequestError("Invalid 'expires_at': it must be in the future (unix seconds).", 'expires_at');
    }
    const permissions = pick('permissions', current.permissions ? (JSON.parse(current.permissions) as KeyPermissions) : null) ?? null;
    const models = pick('models', current.models ? (JSON.parse(current.models) as string[]) : null) ?? null;
    return {
      name: pick('name', current.name ?? null) ?? null,
      expires_at: expiresAt,
      permissions: permissions === null ? null : JSON.stringify(permissions),
      models: models === null ? null : JSON.stringify(models),
      max_budget_micros: maxBudget == null ? null : toMicros(maxBudget),
      budget_duration: duration,
      budget_duration_seconds: seconds,
      budget_reset_at:
        seconds === null ? null : windowChanged || current.budget_reset_at == null ? this.#now() + seconds : current.budget_reset_at,
      rpm_limit: pick('rpm_limit', current.rpm_limit ?? null) ?? null,
      tpm_limit: pick('tpm_limit', current.tpm_limit ?? null) ?? null,
    };
  }
}

/** What a stored key (or settings about to be stored) grants. */
export function grantOf(row: KeySettings & { id?: string }): KeyGrant {
  return {
    id: row.id ?? '',
    permissions: row.permissions ? (JSON.parse(row.permissions) as KeyPermissions) : null,
    models: row.models ? (JSON.parse(row.models) as string[]) : null,
    max_budget_micros: row.max_budget_micros,
    expires_at: row.expires_at,
    rpm_limit: row.rpm_limit,
    tpm_limit: row.tpm_limit,
  };
}

export function toApiKey(row: KeyRow, now: number): ApiKey {
  // A window that ended shows as the fresh one the next call will start.
  const ended = row.budget_reset_at !== null && row.budget_duration_seconds !== null && row.budget_reset_at <= now;
  const resetAt = ended
    ? row.budget_reset_at! + row.budget_duration_seconds! * (Math.floor((now - row.budget_reset_at!) / row.budget_duration_seconds!) + 1)
    : row.budget_reset_at;
  const grant = grantOf(row);
  return {
    id: row.id,
    object: 'api_key',
    name: row.name,
    redacted_value: redactedValue(row.key_hint),
    created_at: row.created_at,
    last_used_at: row.last_used_at,
    expires_at: row.expires_at,
    permissions: grant.permissions,
    models: grant.models ? [...grant.models] : null,
    max_budget: row.max_budget_micros === null ? null : fromMicros(row.max_budget_micros),
    budget_duration: row.budget_duration as ApiKey['budget_duration'],
    spend: ended ? 0 : fromMicros(row.spend_micros),
    budget_reset_at: resetAt,
    rpm_limit: row.rpm_limit,
    tpm_limit: row.tpm_limit,
  };
}

/** What a key shows of its secret: `fth_…` and the last four characters. */
function redactedValue(hint: string): string {
  return `fth_…${hint}`;
}
