import type { Account, LedgerEntry, List } from '../api/types';
import { Empty, ErrorMessage, formatDate, formatMoney, Section, useApi, useLoad } from './ui';

/** The account's balance and its money movements (credits, reservations, charges, releases). */
export function BalanceAndLedger({ refreshKey }: { refreshKey?: unknown }) {
  const api = useApi();
  const account = useLoad((signal) => api.get<Account>('/v1/account', undefined, signal), [refreshKey]);
  const ledger = useLoad((signal) => api.get<List<LedgerEntry>>('/v1/account/ledger', { limit: 50 }, signal), [refreshKey]);
  return (
    <Section title="Balance and ledger">
      <ErrorMessage error={account.error ?? ledger.error} />
      {account.data ? (
        <p className="balance">
          Balance: <strong>{formatMoney(account.data.balance)}</strong>
        </p>
      ) : null}
      {ledger.data && ledger.data.data.length === 0 ? <Empty>No money has moved on this account yet.</Empty> : null}
      {ledger.data && ledger.data.data.length > 0 ? (
        <table aria-label="Ledger">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">Amount</th>
              <th scope="col">Reference</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {ledger.data.data.map((entry) => (
              <tr key={entry.id}>
                <td>{formatDate(entry.created_at)}</td>
                <td>{entry.kind}</td>
                <td className="number">{formatMoney(entry.amount)}</td>
                <td>{entry.ref ?? '—'}</td>
                <td>{entry.description ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}
