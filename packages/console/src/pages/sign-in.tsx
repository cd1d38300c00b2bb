import { useState, type FormEvent } from 'react';
import { ApiClient, ApiError } from '../api/client';
import type { Account } from '../api/types';
import { ErrorMessage } from '../components/ui';
import type { Session } from '../session';

/**
 * Paste an API key: an account key opens the account's pages; the installation's admin key (which
 * belongs to no account) opens the admin pages. The key is checked against the API before it is kept.
 */
export function SignInPage({ onSignIn }: { onSignIn(session: Session): void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<Error | undefined>();
  const [pending, setPending] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) return setError(new Error('Paste an API key to sign in.'));
    setPending(true);
    setError(undefined);
    const client = new ApiClient(trimmed);
    try {
      const account = await client.get<Account>('/v1/account');
      onSignIn({ key: trimmed, kind: 'account', name: account.name });
    } catch (accountError) {
      if (!(accountError instanceof ApiError) || accountError.status !== 401) {
        setError(accountError as Error);
        setPending(false);
        return;
      }
      try {
        await client.get('/v1/admin/accounts', { limit: 1 });
        onSignIn({ key: trimmed, kind: 'admin' });
      } catch {
        // Neither an account key nor the admin key: show what the account API said.
        setError(accountError);
        setPending(false);
      }
    }
  };

  return (
    <main className="sign-in" id="main" aria-label="Sign in">
      <form onSubmit={submit} className="card">
        <h1>Fathom Console</h1>
        <p>Sign in with an API key. It is kept in this browser tab only and sent to this server only.</p>
        <label htmlFor="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          onChange={(event) => setKey(event.target.value)}
          aria-describedby={error ? 'sign-in-error' : undefined}
        />
        <button type="submit" disabled={pending}>
          {pending ? 'Signing in…' : 'Sign in'}
        </button>
        <div id="sign-in-error">
          <ErrorMessage error={error} />
        </div>
      </form>
    </main>
  );
}
