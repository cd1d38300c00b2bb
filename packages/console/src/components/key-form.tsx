import { useState, type FormEvent } from 'react';
import type { ApiKey, ApiKeyCreateParams, PermissionLevel, ResourceFamily } from '../api/types';

/**
 * The resource families a key's permissions name, in the form's order. Core's `RESOURCE_FAMILIES` is a value
 * (importing it would bundle core), so the list is checked against its type at compile time instead: each
 * entry is a `ResourceFamily` (`satisfies`), and every `ResourceFamily` is an entry (below).
 */
export const FAMILIES = [
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
] as const satisfies readonly ResourceFamily[];

/** Compiles only when no family of core is missing from `FAMILIES` (the error names the missing one). */
const _everyFamilyListed: Record<Exclude<ResourceFamily, (typeof FAMILIES)[number]>, never> = {};

type Duration = '' | '1d' | '7d' | '30d';

interface Draft {
  name: string;
  restricted: boolean;
  permissions: Record<ResourceFamily, PermissionLevel>;
  models: string;
  maxBudget: string;
  duration: Duration;
  rpm: string;
  tpm: string;
  /** `YYYY-MM-DD` (UTC), the last day the key works; empty: never expires. */
  expires: string;
}

const numberOrNull = (text: string): number | null => (text.trim() === '' ? null : Number(text));

function draftOf(key: ApiKey | undefined): Draft {
  const permissions = Object.fromEntries(
    FAMILIES.map((family) => [family, key?.permissions ? (key.permissions[family] ?? 'none') : 'write']),
  ) as Record<ResourceFamily, PermissionLevel>;
  return {
    name: key?.name ?? '',
    restricted: Boolean(key?.permissions),
    permissions,
    models: key?.models?.join(', ') ?? '',
    maxBudget: key?.max_budget == null ? '' : String(key.max_budget),
    duration: key?.budget_duration ?? '',
    rpm: key?.rpm_limit == null ? '' : String(key.rpm_limit),
    tpm: key?.tpm_limit == null ? '' : String(key.tpm_limit),
    expires: key?.expires_at ? new Date(key.expires_at * 1000).toISOString().slice(0, 10) : '',
  };
}

/** The settings as the API takes them (`null` clears a limit on update). */
function paramsOf(draft: Draft): ApiKeyCreateParams {
  const models = draft.models
    .split(',')
    .map((model) => model.trim())
    .filter(Boolean);
  return {
    name: draft.name.trim() || null,
    permissions: draft.restricted ? draft.permissions : null,
    models: models.length > 0 ? models : null,
    max_budget: numberOrNull(draft.maxBudget),
    budget_duration: draft.duration || null,
    rpm_limit: numberOrNull(draft.rpm),
    tpm_limit: numberOrNull(draft.tpm),
    // The end of the chosen UTC day.
    expires_at: draft.expires ? Date.parse(`${draft.expires}T23:59:59Z`) / 1000 : null,
  };
}

/**
 * A key's name, permissions per resource family, model allow-list, budget and window, rate limits and
 * expiry: for a new key (empty) or an existing one (its settings). `idPrefix` keeps labels unique.
 */
export function KeyForm({
  initial,
  idPrefix,
  submitLabel,
  pending,
  onSubmit,
}: {
  initial?: ApiKey;
  idPrefix: string;
  submitLabel: string;
  pending: boolean;
  onSubmit: (params: ApiKeyCreateParams) => void;
}) {
  const [draft, setDraft] = useState<Draft>(() => draftOf(initial));
  const set = <K extends keyof Draft>(name: K, value: Draft[K]) => setDraft((current) => ({ ...current, [name]: value }));
  const id = (name: string) => `${idPrefix}-${name}`;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit(paramsOf(draft));
  };
  return (
    <form className="grid-form" onSubmit={submit}>
      <label htmlFor={id('name')}>Key name</label>
      <input id={id('name')} value={draft.name} onChange={(event) => set('name', event.target.value)} placeholder="ci-runner" />
      <label htmlFor={id('models')}>Models</label>
      <div className="field">
        <input
          id={id('models')}
          value={draft.models}
          onChange={(event) => set('models', event.target.value)}
          placeholder="openai/gpt-4o-mini, anthropic/*"
        />
        <small>Comma-separated ids or vendor/* globs; empty: every model.</small>
      </div>
      <label htmlFor={id('budget')}>Budget</label>
      <div className="inline">
        <input
          id={id('budget')}
          type="number"
          min={0}
          step="any"
          value={draft.maxBudget}
          onChange={(event) => set('maxBudget', event.target.value)}
          placeholder="no budget"
        />
        <label htmlFor={id('duration')}>per</label>
        <select id={id('duration')} value={draft.duration} onChange={(event) => set('duration', event.target.value as Duration)}>
          <option value="">lifetime</option>
          <option value="1d">day</option>
          <option value="7d">7 days</option>
          <option value="30d">30 days</option>
        </select>
      </div>
      <label htmlFor={id('rpm')}>Requests per minute</label>
      <input
        id={id('rpm')}
        type="number"
        min={1}
        step={1}
        value={draft.rpm}
        onChange={(event) => set('rpm', event.target.value)}
        placeholder="no limit"
      />
      <label htmlFor={id('tpm')}>Tokens per minute</label>
      <input
        id={id('tpm')}
        type="number"
        min={1}
        step={1}
        value={draft.tpm}
        onChange={(event) => set('tpm', event.target.value)}
        placeholder="no limit"
      />
      <label htmlFor={id('expires')}>Expires after</label>
      <input id={id('expires')} type="date" value={draft.expires} onChange={(event) => set('expires', event.target.value)} />
      <label htmlFor={id('restricted')}>Permissions</label>
      <div className="field">
        <span className="check-line">
          <input
            id={id('restricted')}
            type="checkbox"
            checked={draft.restricted}
            onChange={(event) => set('restricted', event.target.checked)}
          />
          <label htmlFor={id('restricted')}>Restrict to the levels below (otherwise everything the account may do)</label>
        </span>
        {draft.restricted ? (
          <fieldset className="permissions">
            <legend>Level per resource family</legend>
            {FAMILIES.map((family) => (
              <span key={family} className="inline">
                <label htmlFor={id(`perm-${family}`)}>{family}</label>
                <select
                  id={id(`perm-${family}`)}
                  value={draft.permissions[family]}
                  onChange={(event) => set('permissions', { ...draft.permissions, [family]: event.target.value as PermissionLevel })}
                >
                  <option value="none">none</option>
                  <option value="read">read</option>
                  <option value="write">write</option>
                </select>
              </span>
            ))}
          </fieldset>
        ) : null}
      </div>
      <button type="submit" className="primary" disabled={pending}>
        {submitLabel}
      </button>
    </form>
  );
}
