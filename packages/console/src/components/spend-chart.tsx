import { useCallback, useMemo, useState } from 'react';
import type { ApiKey, ApiKeysPage, UsageGroupsPage } from '../api/types';
import { DayChart, type DaySeries, seriesByDay } from './day-chart';
import { Empty, ErrorMessage, Section, useApi, useLoad } from './ui';

export const RANGES = [7, 14, 30, 90] as const;

/** Money as the chart and table read it: cents when there are some, else the few digits that matter. */
export const formatCost = (value: number): string =>
  value === 0 ? '0' : Math.abs(value) >= 0.01 ? value.toFixed(2) : Number(value.toPrecision(2)).toString();

/** Unix seconds of 00:00 UTC `days - 1` days ago: the first day of a range ending today. */
export const rangeStart = (days: number): number => {
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) / 1000;
  return today - (days - 1) * 86_400;
};

/** How many days a budget window lasts (the budget line is the window's budget spread over its days). */
const WINDOW_DAYS: Record<string, number> = { '1d': 1, '7d': 7, '30d': 30 };

/**
 * Cost per day for a range (`GET /v1/usage?group_by=day,model,key`), stacked by model or by key, for all
 * keys or one; for one key with a daily, weekly or monthly budget, the budget per day as a dashed line.
 */
export function SpendSection() {
  const api = useApi();
  const [range, setRange] = useState<number>(30);
  const [stackBy, setStackBy] = useState<'model' | 'key'>('model');
  const [keyId, setKeyId] = useState('');
  const usage = useLoad(
    (signal) => api.get<UsageGroupsPage>('/v1/usage', { group_by: 'day,model,key', start_time: rangeStart(range) }, signal),
    [range],
  );
  // Names and budgets of the keys; a key without the `keys` permission still sees its spend by key id.
  const keys = useLoad((signal) => api.get<ApiKeysPage>('/v1/account/keys', { limit: 100 }, signal).catch(() => undefined), []);
  const byId = useMemo(() => new Map<string, ApiKey>((keys.data?.data ?? []).map((key) => [key.id, key])), [keys.data]);
  const keyLabel = useCallback(
    (id: string | null | undefined) => (id ? (byId.get(id)?.name ?? byId.get(id)?.redacted_value ?? id) : 'background work (no key)'),
    [byId],
  );

  const rows = useMemo(
    () => (usage.data?.data ?? []).filter((row) => !keyId || row.key_id === keyId).map((row) => ({ ...row, date: row.day ?? '' })),
    [usage.data, keyId],
  );
  const chart = useMemo(
    () =>
      seriesByDay(
        rows,
        (row) => (stackBy === 'model' ? (row.model ?? '') : keyLabel(row.key_id)),
        (row) => row.cost,
        6,
        range,
      ),
    [rows, stackBy, range, keyLabel],
  );
  const chosen = keyId ? byId.get(keyId) : undefined;
  const lines = useMemo<DaySeries[]>(() => {
    const days = chosen?.budget_duration ? WINDOW_DAYS[chosen.budget_duration] : undefined;
    if (!chosen || chosen.max_budget === null || !days) return [];
    const perDay = chosen.max_budget / days;
    return [{ label: days === 1 ? 'Budget per day' : `Budget ÷ ${days} days`, values: chart.days.map(() => perDay) }];
  }, [chosen, chart.days]);
  const keyIds = [...new Set((usage.data?.data ?? []).map((row) => row.key_id ?? ''))].filter(Boolean);
  const total = rows.reduce((sum, row) => sum + row.cost, 0);

  return (
    <Section title="Spend">
      <div className="chart-controls">
        <span>
          <label htmlFor="spend-range">Range</label>{' '}
          <select id="spend-range" value={range} onChange={(event) => setRange(Number(event.target.value))}>
            {RANGES.map((days) => (
              <option key={days} value={days}>
                last {days} days
              </option>
            ))}
          </select>
        </span>
        <div role="radiogroup" aria-labelledby="spend-stack-by" className="inline">
          <span id="spend-stack-by">Stack by</span>
          <label>
            <input type="radio" name="stack-by" checked={stackBy === 'model'} onChange={() => setStackBy('model')} /> model
          </label>
          <label>
            <input type="radio" name="stack-by" checked={stackBy === 'key'} onChange={() => setStackBy('key')} /> key
          </label>
        </div>
        <span>
          <label htmlFor="spend-key">Key</label>{' '}
          <select id="spend-key" value={keyId} onChange={(event) => setKeyId(event.target.value)}>
            <option value="">all keys</option>
            {[...new Set([...byId.keys(), ...keyIds])].map((id) => (
              <option key={id} value={id}>
                {keyLabel(id)}
              </option>
            ))}
          </select>
        </span>
        <span>
          Total: <strong>{formatCost(total)}</strong>
        </span>
      </div>
      <ErrorMessage error={usage.error} />
      {chosen && chosen.max_budget !== null && !chosen.budget_duration ? (
        <p className="note">This key's budget is a lifetime one ({formatCost(chosen.max_budget)}): its spend bar is on the Keys page.</p>
      ) : null}
      {usage.data && rows.length === 0 ? <Empty>No priced model calls in this range.</Empty> : null}
      {rows.length > 0 ? (
        <figure>
          <figcaption>Cost per day, by {stackBy}</figcaption>
          <DayChart
            label={`Cost per day, by ${stackBy}`}
            days={chart.days}
            series={chart.series}
            lines={lines}
            stacked
            format={formatCost}
          />
        </figure>
      ) : null}
      {rows.length > 0 ? (
        <table aria-label="Cost per day, model and key">
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Model</th>
              <th scope="col">Key</th>
              <th scope="col">Requests</th>
              <th scope="col">Tokens</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={`${row.day}-${row.model}-${row.key_id}`}>
                <td>{row.day}</td>
                <td>{row.model}</td>
                <td>{keyLabel(row.key_id)}</td>
                <td className="number">{row.requests}</td>
                <td className="number">{row.total_tokens}</td>
                <td className="number">{formatCost(row.cost)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}
