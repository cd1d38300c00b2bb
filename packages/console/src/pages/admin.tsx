import { useState, type FormEvent } from 'react';
import type { AdminAccount, List } from '../api/types';
import { Empty, ErrorMessage, formatDate, formatMoney, Section, useAction, useApi, useLoad } from '../components/ui';

/** Admin key only: accounts with balances and key hints; create accounts, issue and revoke keys, credit. */
export function AdminPage() {
  const api = useApi();
  const accounts = useLoad((signal) => api.get<List<AdminAccount>>('/v1/admin/accounts', { limit: 100 }, signal), []);
  const [name, setName] = useState('');
  const [balance, setBalance] = useState(0);
  const [issued, setIssued] = useState<{ label: string; key: string } | undefined>();
  const [credits, setCredits] = useState<Record<string, number>>({});

  const create = useAction(async (event: FormEvent) => {
    event.preventDefault();
    const created = await api.post<{ name: string; api_key: string }>('/v1/admin/accounts', { name, balance });
    setIssued({ label: `Key of the new account ${created.name}`, key: created.api_key });
    setName('');
    accounts.reload();
  });
  const newKey = useAction(async (account: AdminAccount) => {
    const created = await api.post<{ api_key: string }>(`/v1/admin/accounts/${encodeURIComponent(account.id)}/keys`);
    setIssued({ label: `New key of ${account.name}`, key: created.api_key });
    accounts.reload();
  });
  const revoke = useAction(async (keyId: string) => {
    await api.delete(`/v1/admin/keys/${encodeURIComponent(keyId)}`);
    accounts.reload();
  });
  const credit = useAction(async (account: AdminAccount) => {
    await api.post(`/v1/admin/accounts/${encodeURIComponent(account.id)}/credit`, { amount: credits[account.id] ?? 0 });
    setCredits((current) => ({ ...current, [account.id]: 0 }));
    accounts.reload();
  });

  return (
    <>
      <Section title="New account">
        <form className="inline" onSubmit={create.run}>
          <label htmlFor="account-name">Name</label>
          <input id="account-name" value={name} onChange={(event) => setName(event.target.value)} required />
          <label htmlFor="account-balance">Initial balance</label>
          <input
            id="account-balance"
            type="number"
            min={0}
            step="any"
            value={balance}
            onChange={(event) => setBalance(Number(event.target.value))}
          />
          <button type="submit" disabled={create.pending}>
            Create account
          </button>
        </form>
        <ErrorMessage error={create.error} />
        {issued ? (
          <div role="status" className="notice">
            {issued.label} (shown once, copy it now): <code>{issued.key}</code>{' '}
            <button type="button" onClick={() => setIssued(undefined)}>
              Hide
            </button>
          </div>
        ) : null}
      </Section>
      <Section title="Accounts">
        <ErrorMessage error={accounts.error ?? newKey.error ?? revoke.error ?? credit.error} />
        {accounts.data && accounts.data.data.length === 0 ? <Empty>No accounts.</Empty> : null}
        {accounts.data && accounts.data.data.length > 0 ? (
          <table aria-label="Accounts">
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Balance</th>
                <th scope="col">Keys</th>
                <th scope="col">Credit</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {accounts.data.data.map((account) => (
                <tr key={account.id}>
                  <td>
                    {account.name}
                    <br />
                    <small>{account.id}</small>
                  </td>
                  <td className="number">{formatMoney(account.balance)}</td>
                  <td>
                    <ul className="plain">
                      {account.keys.map((key) => (
                        <li key={key.id}>
                          {key.hint}{' '}
                          <button
                            type="button"
                            onClick={() => void revoke.run(key.id)}
                            aria-label={`Revoke key ${key.hint} of ${account.name}`}
                          >
                            Revoke
                          </button>
                        </li>
                      ))}
                    </ul>
                    <button type="button" onClick={() => void newKey.run(account)} aria-label={`Issue a key for ${account.name}`}>
                      New key
                    </button>
                  </td>
                  <td>
                    <input
                      type="number"
                      min={0}
                      step="any"
                      aria-label={`Credit amount for ${account.name}`}
                      value={credits[account.id] ?? 0}
                      onChange={(event) => setCredits((current) => ({ ...current, [account.id]: Number(event.target.value) }))}
                    />
                    <button type="button" onClick={() => void credit.run(account)} aria-label={`Credit ${account.name}`}>
                      Credit
                    </button>
                  </td>
                  <td>{formatDate(account.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
    </>
  );
}
