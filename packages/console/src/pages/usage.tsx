import type { UsagePage as UsageList } from '../api/types';
import { BalanceAndLedger } from '../components/ledger';
import { Empty, ErrorMessage, Section, useApi, useLoad } from '../components/ui';

/** Tokens per day and model (from `GET /v1/usage`), with the balance and ledger. */
export function UsagePage() {
  const api = useApi();
  const usage = useLoad((signal) => api.get<UsageList>('/v1/usage', undefined, signal), []);
  const rows = usage.data?.data ?? [];
  const largest = Math.max(1, ...rows.map((row) => row.total_tokens));
  return (
    <>
      <Section title="Token usage">
        <ErrorMessage error={usage.error} />
        {usage.data && rows.length === 0 ? <Empty>No model calls yet. Usage appears here after the first chat, run or job.</Empty> : null}
        {rows.length > 0 ? (
          <table aria-label="Usage per day and model">
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Model</th>
                <th scope="col">Requests</th>
                <th scope="col">Prompt tokens</th>
                <th scope="col">Completion tokens</th>
                <th scope="col">Total</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={`${row.date}-${row.model}`}>
                  <td>{row.date}</td>
                  <td>{row.model}</td>
                  <td className="number">{row.requests}</td>
                  <td className="number">{row.prompt_tokens}</td>
                  <td className="number">{row.completion_tokens}</td>
                  <td className="number">
                    <meter min={0} max={largest} value={row.total_tokens} aria-label={`${row.total_tokens} tokens`} /> {row.total_tokens}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </Section>
      <BalanceAndLedger />
    </>
  );
}
