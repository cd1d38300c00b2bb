import { PermissionDeniedError } from '../errors';
import type { KeyPermissions, PermissionLevel, ResourceFamily } from './wire/keys';
import { RESOURCE_FAMILIES } from './wire/keys';

const RANK: Record<PermissionLevel, number> = { none: 0, read: 1, write: 2 };

/** What a key may do: the limits `authenticate` answers with, and key-management checks compare. */
export interface KeyGrant {
  id: string;
  /** Null: everything the account may do. */
  permissions: KeyPermissions | null;
  /** Null: any model. */
  models: readonly string[] | null;
  max_budget_micros: number | null;
  expires_at: number | null;
  rpm_limit: number | null;
  tpm_limit: number | null;
}

/** The level a key has on a family: `write` for a key without permissions, `none` for a family it does not list. */
export function levelOf(permissions: KeyPermissions | null, family: ResourceFamily): PermissionLevel {
  return permissions === null ? 'write' : (permissions[family] ?? 'none');
}

/** The level a request needs: `read` for GET (and HEAD), `write` for everything else. */
export function levelFor(method: string): PermissionLevel {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** Throws 403 `permission_denied` naming the family and the level when the key lacks it. */
export function checkPermission(key: Pick<KeyGrant, 'permissions'>, family: ResourceFamily, needed: PermissionLevel): void {
  if (RANK[levelOf(key.permissions, family)] >= RANK[needed]) return;
  throw new PermissionDeniedError(
    `This API key does not have '${needed}' permission on '${family}' (it has '${levelOf(key.permissions, family)}').`,
  );
}

/** Whether an allow-list admits a model id or glob: an exact entry, or a `vendor/*` glob covering it. */
function covers(allowed: readonly string[], model: string): boolean {
  return allowed.some(
    (entry) => entry === model || (entry.endsWith('/*') && model.startsWith(entry.slice(0, -1)) && !model.endsWith('/*')),
  );
}

/**
 * Throws 403 unless `child` grants nothing `parent` does not: each family's level, the models, the budget,
 * the expiry and the rate limits. A key creating, changing, rotating or revoking another is checked so.
 */
export function checkWithin(child: Omit<KeyGrant, 'id'>, parent: KeyGrant): void {
  const refuse = (what: string, param: string): never => {
    throw new PermissionDeniedError(`A key cannot grant more than itself: ${what}.`, param);
  };
  for (const family of RESOURCE_FAMILIES) {
    if (RANK[levelOf(child.permissions, family)] > RANK[levelOf(parent.permissions, family)]) {
      refuse(
        `'${levelOf(child.permissions, family)}' on '${family}' exceeds this key's '${levelOf(parent.permissions, family)}'`,
        'permissions',
      );
    }
  }
  if (parent.models !== null) {
    if (child.models === null) refuse('this key is limited to some models, so the new key must list its models', 'models');
    const outside = child.models!.find((model) => !covers(parent.models!, model) && !parent.models!.includes(model));
    if (outside !== undefined) refuse(`model '${outside}' is not allowed to this key`, 'models');
  }
  if (parent.max_budget_micros !== null && (child.max_budget_micros === null || child.max_budget_micros > parent.max_budget_micros)) {
    refuse("the budget would be larger than this key's", 'max_budget');
  }
  if (parent.expires_at !== null && (child.expires_at === null || child.expires_at > parent.expires_at)) {
    refuse('the key would outlive this key', 'expires_at');
  }
  if (parent.rpm_limit !== null && (child.rpm_limit === null || child.rpm_limit > parent.rpm_limit)) refuse('rpm_limit', 'rpm_limit');
  if (parent.tpm_limit !== null && (child.tpm_limit === null || child.tpm_limit > parent.tpm_limit)) refuse('tpm_limit', 'tpm_limit');
}

/** Seconds of a budget window. */
export function durationSeconds(duration: string | null | undefined): number | null {
  if (!duration) return null;
  const match = /^(\d+)d$/.exec(duration);
  return match ? Number(match[1]) * 86_400 : null;
}
