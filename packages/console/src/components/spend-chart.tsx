import { useCallback, useMemo, useState } from 'react';
import type { ApiKey, ApiKeysPage, UsageGroupsPage } from '../api/types';
import { FiguresTable, formatCost, keyLabel, RangeSelect, rangeStart } from './chart-parts';
import { DayChart, type DaySeries, seriesByDay } from './day-chart';
import { Empty, ErrorMessage, Section, useApi, useLoad } from './ui';

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
  // Budgets of the keys (a key without the `keys` permission sees no budget line); the usage answer names its keys.
  const keys = useLoad((signal) => api.get<ApiKeysPage>('/v1/account/keys', { limit: 100 }, signal).catch(() => undefined), []);
  const byId = useMemo(() => new Map<string, ApiKey>((keys.data?.data ?? []).map((key) => [key.id, key])), [keys.data]);
  const labels = useMemo(() => {
    const known = new Map<string, string>([...byId.values()].map((key) => [key.id, key.name ?? key.redacted_value]));
    for (const row of usage.data?.data ?? []) if (row.key_id) known.set(row.key_id, keyLabel(row));
    return known;
  }, [byId, usage.data]);
  const labelOf = useCallback((id: string | null | undefined) => (id ? (labels.get(id) ?? id) : keyLabel({ key_id: null })), [labels]);

  const rows = useMemo(
    () => (usage.data?.data ?? []).filter((row) => !keyId || row.key_id === keyId).map((row) => ({ ...row, date: row.day ?? '' })),
    [usage.data, keyId],
  );
  const chart = useMemo(
    () =>
      seriesByDay(
        rows,
        (row) => (stackBy === 'model' ? (row.model ?? '') : labelOf(row.key_id)),
        (row) => row.cost,
        6,
        range,
      ),
    [rows, stackBy, range, labelOf],
  );
  const chosen = keyId ? byId.get(keyId) : undefined;
  const lines = useMemo<DaySeries[]>(() => {
    const days = chosen?.budget_duration ? WINDOW_DAYS[chosen.budget_duration] : undefined;
    if (!chosen || chosen.max_budget === null || !days) return [];
    const perDay = chosen.max_budget / days;
    return [{ label: days === 1 ? 'Budget per day' : `Budget ÷ ${days} days`, values: chart.days.map(() => perDay) }];
  }, [chosen, chart.days]);
  const total = rows.reduce((sum, row) => sum + row.cost, 0);

  return (
    <Section title="Spend">
      <div className="chart-controls">
        <RangeSelect id="spend-range" value={range} onChange={setRange} />
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
            {[...labels.keys()].map((id) => (
              <option key={id} value={id}>
                {labelOf(id)}
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
        <FiguresTable
          label="Cost per day, model and key"
          rows={rows}
          rowKey={(row) => `${row.day}-${row.model}-${row.key_id}`}
          columns={[
            { header: 'Day', cell: (row) => row.day },
            { header: 'Model', cell: (row) => row.model },
            { header: 'Key', cell: (row) => labelOf(row.key_id) },
            { header: 'Requests', cell: (row) => row.requests, numeric: true },
            { header: 'Tokens', cell: (row) => row.total_tokens, numeric: true },
            { header: 'Cost', cell: (row) => formatCost(row.cost), numeric: true },
          ]}
        />
      ) : null}
    </Section>
  );
}
