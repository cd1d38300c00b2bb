import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { ListPage, ListQuery, Nullable, StringEnum } from '../../wire';
import { MAX_CREDIT_UNITS } from '../money';

/*
 * API keys as objects (`/v1/account/keys`, and the admin equivalents): permissions per resource family,
 * a model allow-list, a budget with its window, rate limits, expiry and rotation. The limits carry
 * LiteLLM's names (`max_budget`, `budget_duration`, `rpm_limit`, `tpm_limit`, `spend`).
 */

/** The resource families a key's `permissions` name; every route belongs to one. */
export const RESOURCE_FAMILIES = [
  'models',
  'responses',
  'assistants',
  'files',
  'vector_stores',
  'embeddings',
  'tools',
  'agents',
  'batches',
  'usage',
  'keys',
] as const;
export type ResourceFamily = (typeof RESOURCE_FAMILIES)[number];

export const PermissionLevel = StringEnum(['none', 'read', 'write'], {
  description: '`read`: GET requests; `write`: every request; `none`: nothing.',
});
export type PermissionLevel = Static<typeof PermissionLevel>;

export const KeyPermissions = Type.Object(Object.fromEntries(RESOURCE_FAMILIES.map((family) => [family, Type.Optional(PermissionLevel)])), {
  title: 'KeyPermissions',
  additionalProperties: false,
  description: 'Resource family -> level; a family not listed is `none`.',
});
export type KeyPermissions = Partial<Record<ResourceFamily, PermissionLevel>>;

export const BudgetDuration = StringEnum(['1d', '7d', '30d'], { description: 'The budget window; null: a lifetime budget.' });
export type BudgetDuration = Static<typeof BudgetDuration>;

const ModelList = Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
  maxItems: 100,
  description: 'Model ids the key may call: exact ids or `vendor/*` globs (aliases are resolved first).',
});

/** The settings of a key, as created or updated. */
const keySettings = {
  name: Type.Optional(Nullable(Type.String({ maxLength: FIELD_LIMITS.name }))),
  expires_at: Type.Optional(Nullable(Type.Integer({ minimum: 0, description: 'Unix seconds; null: never.' }))),
  permissions: Type.Optional(Nullable(KeyPermissions)),
  models: Type.Optional(Nullable(ModelList)),
  max_budget: Type.Optional(Nullable(Type.Number({ minimum: 0, maximum: MAX_CREDIT_UNITS, description: 'Currency units.' }))),
  budget_duration: Type.Optional(Nullable(BudgetDuration)),
  rpm_limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000 }))),
  tpm_limit: Type.Optional(Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000 }))),
};

export const ApiKeyCreateParams = Type.Object(keySettings, { title: 'ApiKeyCreateParams', additionalProperties: false });
export type ApiKeyCreateParams = Static<typeof ApiKeyCreateParams>;

export const ApiKeyUpdateParams = Type.Object(keySettings, { title: 'ApiKeyUpdateParams', additionalProperties: false });
export type ApiKeyUpdateParams = Static<typeof ApiKeyUpdateParams>;

export const ApiKeyRotateParams = Type.Object(
  {
    grace_period_seconds: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 30 * 86_400, description: 'How long the old secret keeps working (default 0).' }),
    ),
  },
  { title: 'ApiKeyRotateParams', additionalProperties: false },
);
export type ApiKeyRotateParams = Static<typeof ApiKeyRotateParams>;

/** An API key: never its secret, only a redacted form of it. */
export const ApiKey = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('api_key'),
    name: Nullable(Type.String()),
    redacted_value: Type.String({ description: '`fth_…` and the last four characters.' }),
    created_at: Type.Integer(),
    last_used_at: Nullable(Type.Integer({ description: 'Unix seconds, to the minute.' })),
    expires_at: Nullable(Type.Integer()),
    permissions: Nullable(KeyPermissions),
    models: Nullable(Type.Array(Type.String())),
    max_budget: Nullable(Type.Number()),
    budget_duration: Nullable(BudgetDuration),
    spend: Type.Number({ description: 'Spent (and held by calls running) in the current budget window, currency units.' }),
    budget_reset_at: Nullable(Type.Integer()),
    rpm_limit: Nullable(Type.Integer()),
    tpm_limit: Nullable(Type.Integer()),
  },
  { title: 'ApiKey', additionalProperties: false },
);
export type ApiKey = Static<typeof ApiKey>;

/** A key just created or rotated, with its secret (`value`), shown this once. */
export const ApiKeyWithValue = Type.Object(
  { ...ApiKey.properties, value: Type.String() },
  { title: 'ApiKeyWithValue', additionalProperties: false },
);
export type ApiKeyWithValue = Static<typeof ApiKeyWithValue>;

/** `POST /v1/admin/accounts/{id}/keys`: the key with its secret, also as `api_key` (the earlier answer's name). */
export const AdminApiKeyCreated = Type.Object(
  { ...ApiKeyWithValue.properties, api_key: Type.String() },
  { title: 'AdminApiKeyCreated', additionalProperties: false },
);
export type AdminApiKeyCreated = Static<typeof AdminApiKeyCreated>;

export const ApiKeyListParams = ListQuery();
export type ApiKeyListParams = Static<typeof ApiKeyListParams>;

export const ApiKeysPage = ListPage(ApiKey);
export type ApiKeysPage = Static<typeof ApiKeysPage>;
