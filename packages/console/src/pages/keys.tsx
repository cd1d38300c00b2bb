import { useEffect, useRef, useState, type ReactNode } from 'react';
import { ApiError } from '../api/client';
import type { ApiKey, ApiKeyCreateParams, ApiKeysPage, ApiKeyWithValue } from '../api/types';
import { KeyForm } from '../components/key-form';
import { Empty, ErrorMessage, formatDate, formatMoney, Section, useAction, useApi, useLoad } from '../components/ui';

/** A modal `<dialog>` (focus kept inside, Escape closes it) open while `open`. */
function Modal({ title, open, onClose, children }: { title: string; open: boolean; onClose: () => void; children: ReactNode }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) dialog.showModal();
    if (!open && dialog.open) dialog.close();
  }, [open]);
  return (
    <dialog ref={ref} aria-label={title} onClose={onClose} className="modal">
      {open ? (
        <>
          <h2>{title}</h2>
          {children}
        </>
      ) : null}
    </dialog>
  );
}

/** The secret of a key just created or rotated: shown in this dialog only, and forgotten when it closes. */
function SecretDialog({ secret, onClose }: { secret: ApiKeyWithValue | undefined; onClose: () => void }) {
  const [copied, setCopied] = useState(false);
  const close = () => {
    setCopied(false);
    onClose();
  };
  const copy = async () => {
    if (!secret) return;
    await navigator.clipboard.writeText(secret.value);
    setCopied(true);
  };
  return (
    <Modal title="Your new API key" open={secret !== undefined} onClose={close}>
      <p>
        Copy the secret of <strong>{secret?.name ?? secret?.id}</strong> now: Fathom keeps only its hash and will never show it again.
      </p>
      <p className="notice">
        <code className="secret">{secret?.value}</code>
      </p>
      <div className="actions">
        <button type="button" onClick={() => void copy()}>
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" className="primary" onClick={close}>
          Done
        </button>
      </div>
      <span role="status" className="visually-hidden">
        {copied ? 'The secret is on the clipboard.' : ''}
      </span>
    </Modal>
  );
}

const describePermissions = (key: ApiKey): string =>
  key.permissions
    ? Object.entries(key.permissions)
        .filter(([, level]) => level && level !== 'none')
        .map(([family, level]) => `${family}: ${level}`)
        .join(', ') || 'nothing'
    : 'everything';

function Budget({ apiKey }: { apiKey: ApiKey }) {
  if (apiKey.max_budget === null) return <>{formatMoney(apiKey.spend)} spent, no budget</>;
  const window = apiKey.budget_duration ? `per ${apiKey.budget_duration}` : 'lifetime';
  return (
    <span className="field">
      <span>
        <meter
          min={0}
          max={apiKey.max_budget || 1}
          high={(apiKey.max_budget || 1) * 0.8}
          value={apiKey.spend}
          aria-label={`${apiKey.spend} of ${apiKey.max_budget} spent`}
        />{' '}
        {formatMoney(apiKey.spend)} / {formatMoney(apiKey.max_budget)} {window}
      </span>
      {apiKey.budget_reset_at ? <small>resets {formatDate(apiKey.budget_reset_at)}</small> : null}
    </span>
  );
}

/**
 * The account's API keys (`/v1/account/keys`): limits, budgets with their spend, create (the secret shown
 * once), edit, rotate and revoke. A key manages keys only with the `keys` permission, and never makes one
 * with more rights or a larger budget than itself (the API answers 403 and the message is shown).
 */
export function KeysPage({ sessionKey }: { sessionKey: string }) {
  const api = useApi();
  const keys = useLoad((signal) => api.get<ApiKeysPage>('/v1/account/keys', { limit: 100 }, signal), []);
  const [secret, setSecret] = useState<ApiKeyWithValue | undefined>();
  const [editing, setEditing] = useState<ApiKey | undefined>();
  const [rotating, setRotating] = useState<ApiKey | undefined>();
  const [grace, setGrace] = useState(0);
  const [confirming, setConfirming] = useState<string | undefined>();

  const create = useAction(async (params: ApiKeyCreateParams) => {
    setSecret(await api.post<ApiKeyWithValue>('/v1/account/keys', params));
    keys.reload();
  });
  const update = useAction(async (params: ApiKeyCreateParams) => {
    if (!editing) return;
    await api.post<ApiKey>(`/v1/account/keys/${encodeURIComponent(editing.id)}`, params);
    setEditing(undefined);
    keys.reload();
  });
  const rotate = useAction(async () => {
    if (!rotating) return;
    const rotated = await api.post<ApiKeyWithValue>(`/v1/account/keys/${encodeURIComponent(rotating.id)}/rotate`, {
      grace_period_seconds: grace,
    });
    setRotating(undefined);
    setSecret(rotated);
    keys.reload();
  });
  const revoke = useAction(async (key: ApiKey) => {
    await api.delete(`/v1/account/keys/${encodeURIComponent(key.id)}`);
    setConfirming(undefined);
    keys.reload();
  });

  const denied = keys.error instanceof ApiError && keys.error.status === 403;
  const isSession = (key: ApiKey) => key.redacted_value.endsWith(sessionKey.slice(-4));
  const list = keys.data?.data ?? [];
  return (
    <>
      {denied ? (
        <Section title="API keys">
          <p className="warning" role="alert">
            This key may not manage keys (it has no <code>keys</code> permission): {keys.error?.message} Sign in with a key that has it, or
            ask an administrator (the admin API manages every account's keys).
          </p>
        </Section>
      ) : (
        <>
          <Section title="New API key">
            <p className="note">
              A key never grants more than the key that creates it: its permissions, models, budget and limits stay within yours.
            </p>
            <KeyForm idPrefix="new-key" submitLabel="Create key" pending={create.pending} onSubmit={(params) => void create.run(params)} />
            <ErrorMessage error={create.error} />
          </Section>
          <Section title="API keys">
            <ErrorMessage error={keys.error ?? revoke.error} />
            {keys.data && list.length === 0 ? <Empty>No keys.</Empty> : null}
            {list.length > 0 ? (
              <table aria-label="API keys">
                <thead>
                  <tr>
                    <th scope="col">Key</th>
                    <th scope="col">Permissions</th>
                    <th scope="col">Models</th>
                    <th scope="col">Budget</th>
                    <th scope="col">Rate limits</th>
                    <th scope="col">Created</th>
                    <th scope="col">Last used</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((key) => {
                    const label = key.name ?? key.redacted_value;
                    return (
                      <tr key={key.id}>
                        <td>
                          {key.name ?? <em>unnamed</em>}
                          <br />
                          <code>{key.redacted_value}</code>
                          {isSession(key) ? <small> (this session)</small> : null}
                        </td>
                        <td>{describePermissions(key)}</td>
                        <td>{key.models?.join(', ') ?? 'any'}</td>
                        <td>
                          <Budget apiKey={key} />
                        </td>
                        <td>
                          {key.rpm_limit ?? '—'} rpm
                          <br />
                          {key.tpm_limit ?? '—'} tpm
                        </td>
                        <td>{formatDate(key.created_at)}</td>
                        <td>{formatDate(key.last_used_at)}</td>
                        <td>{key.expires_at ? formatDate(key.expires_at) : 'never'}</td>
                        <td>
                          <div className="actions">
                            <button type="button" onClick={() => setEditing(key)} aria-label={`Edit ${label}`}>
                              Edit
                            </button>
                            <button
                              type="button"
                              onClick={() => {
                                setGrace(0);
                                rotate.setError(undefined);
                                setRotating(key);
                              }}
                              aria-label={`Rotate ${label}`}
                            >
                              Rotate
                            </button>
                            {confirming === key.id ? (
                              <button
                                type="button"
                                className="danger"
                                disabled={revoke.pending}
                                onClick={() => void revoke.run(key)}
                                aria-label={`Confirm revoking ${label}`}
                              >
                                {isSession(key) ? 'Revoke (signs you out)' : 'Confirm revoke'}
                              </button>
                            ) : (
                              <button type="button" className="danger" onClick={() => setConfirming(key.id)} aria-label={`Revoke ${label}`}>
                                Revoke
                              </button>
                            )}
                          </div>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            ) : null}
          </Section>
        </>
      )}
      <SecretDialog secret={secret} onClose={() => setSecret(undefined)} />
      <Modal
        title={`Edit ${editing?.name ?? editing?.redacted_value ?? ''}`}
        open={editing !== undefined}
        onClose={() => setEditing(undefined)}
      >
        {editing ? (
          <KeyForm
            key={editing.id}
            initial={editing}
            idPrefix="edit-key"
            submitLabel="Save"
            pending={update.pending}
            onSubmit={(params) => void update.run(params)}
          />
        ) : null}
        <ErrorMessage error={update.error} />
        <p className="note">A new budget or window starts the spend from 0.</p>
        <button type="button" onClick={() => setEditing(undefined)}>
          Cancel
        </button>
      </Modal>
      <Modal
        title={`Rotate ${rotating?.name ?? rotating?.redacted_value ?? ''}`}
        open={rotating !== undefined}
        onClose={() => setRotating(undefined)}
      >
        <p>The key gets a new secret; its settings, budget and spend stay.</p>
        <div className="inline">
          <label htmlFor="rotate-grace">Old secret keeps working for (seconds)</label>
          <input
            id="rotate-grace"
            type="number"
            min={0}
            step={1}
            value={grace}
            onChange={(event) => setGrace(Number(event.target.value))}
          />
        </div>
        <ErrorMessage error={rotate.error} />
        <div className="actions">
          <button type="button" className="primary" disabled={rotate.pending} onClick={() => void rotate.run()}>
            Rotate key
          </button>
          <button type="button" onClick={() => setRotating(undefined)}>
            Cancel
          </button>
        </div>
      </Modal>
    </>
  );
}
