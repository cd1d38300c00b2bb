import type { UsagePage as UsageList } from '../api/types';
import { useMemo } from 'react';
import { DayChart, seriesByDay } from '../components/day-chart';
import { ErrorsSection } from '../components/errors-chart';
import { KeysSection } from '../components/key-charts';
import { LatencySection } from '../components/latency-chart';
import { BalanceAndLedger } from '../components/ledger';
import { SpendSection } from '../components/spend-chart';
import { Empty, ErrorMessage, Section, useApi, useLoad } from '../components/ui';

/** Tokens per day and model (from `GET /v1/usage`), spend per day, tokens and spend per key, call latency, errors, the balance and ledger. */
export default function UsagePage() {
  const api = useApi();
  const usage = useLoad((signal) => api.get<UsageList>('/v1/usage', undefined, signal), []);
  const rows = useMemo(() => usage.data?.data ?? [], [usage.data]);
  const largest = Math.max(1, ...rows.map((row) => row.total_tokens));
  const tokens = useMemo(
    () =>
      seriesByDay(
        rows,
        (row) => row.model,
        (row) => row.total_tokens,
      ),
    [rows],
  );
  const requests = useMemo(
    () =>
      seriesByDay(
        rows,
        (row) => row.model,
        (row) => row.requests,
      ),
    [rows],
  );
  return (
    <>
      <Section title="Token usage">
        <ErrorMessage error={usage.error} />
        {usage.data && rows.length === 0 ? <Empty>No model calls yet. Usage appears here after the first chat, run or job.</Empty> : null}
        {rows.length > 0 ? (
          <div className="charts">
            <figure>
              <figcaption>Tokens per day, by model</figcaption>
              <DayChart label="Tokens per day, by model" days={tokens.days} series={tokens.series} />
            </figure>
            <figure>
              <figcaption>Requests per day, by model</figcaption>
              <DayChart label="Requests per day, by model" days={requests.days} series={requests.series} />
            </figure>
          </div>
        ) : null}
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
      <SpendSection />
      <KeysSection />
      <LatencySection />
      <ErrorsSection />
      <BalanceAndLedger />
    </>
  );
}
