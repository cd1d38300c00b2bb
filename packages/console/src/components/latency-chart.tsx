import { useMemo, useState } from 'react';
import type { LatencyPage } from '../api/types';
import { FiguresTable, RangeSelect, rangeStartDay } from './chart-parts';
import { DayChart, type DaySeries, seriesByDay } from './day-chart';
import { Empty, ErrorMessage, Section, useApi, useLoad } from './ui';

const formatMs = (value: number): string =>
  value >= 1000 ? `${(value / 1000).toFixed(value >= 10_000 ? 0 : 1)} s` : `${Math.round(value)} ms`;

/** Model call latency per day (`GET /v1/usage/latency`): p50 and p95 of one model, the busiest by default. */
export function LatencySection() {
  const api = useApi();
  const [range, setRange] = useState<number>(30);
  const [picked, setPicked] = useState('');
  const latency = useLoad((signal) => api.get<LatencyPage>('/v1/usage/latency', { start_date: rangeStartDay(range) }, signal), [range]);
  const all = useMemo(() => latency.data?.data ?? [], [latency.data]);
  const models = useMemo(() => {
    const calls = new Map<string, number>();
    for (const row of all) calls.set(row.model, (calls.get(row.model) ?? 0) + row.requests);
    return [...calls.entries()].sort((a, b) => b[1] - a[1]).map(([model]) => model);
  }, [all]);
  const model = picked && models.includes(picked) ? picked : (models[0] ?? '');
  const rows = useMemo(() => all.filter((row) => row.model === model), [all, model]);
  const chart = useMemo(() => {
    const p50 = seriesByDay(
      rows,
      () => 'p50',
      (row) => row.p50_ms,
      1,
      range,
    );
    const p95 = seriesByDay(
      rows,
      () => 'p95',
      (row) => row.p95_ms,
      1,
      range,
    );
    // A day without calls has no latency (a gap), not 0 ms.
    const measured = new Set(rows.map((row) => row.date));
    const gaps = (line: DaySeries | undefined) => p50.days.map((day, index) => (measured.has(day) ? (line?.values[index] ?? null) : null));
    return {
      days: p50.days,
      series: [
        { label: 'p50', values: gaps(p50.series[0]) },
        { label: 'p95', values: gaps(p95.series[0]) },
      ],
    };
  }, [rows, range]);

  return (
    <Section title="Latency">
      <div className="chart-controls">
        <RangeSelect id="latency-range" value={range} onChange={setRange} />
        <span>
          <label htmlFor="latency-model">Model</label>{' '}
          <select id="latency-model" value={model} onChange={(event) => setPicked(event.target.value)}>
            {models.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </span>
      </div>
      <ErrorMessage error={latency.error} />
      {latency.data && all.length === 0 ? <Empty>No answered model calls in this range.</Empty> : null}
      {rows.length > 0 ? (
        <figure>
          <figcaption>Call latency per day, {model} (p50 and p95)</figcaption>
          <DayChart label={`Call latency per day, ${model}`} days={chart.days} series={chart.series} format={formatMs} />
        </figure>
      ) : null}
      {all.length > 0 ? (
        <FiguresTable
          label="Latency per day and model"
          rows={all}
          rowKey={(row) => `${row.date}-${row.model}`}
          columns={[
            { header: 'Day', cell: (row) => row.date },
            { header: 'Model', cell: (row) => row.model },
            { header: 'Calls', cell: (row) => row.requests, numeric: true },
            { header: 'p50', cell: (row) => formatMs(row.p50_ms), numeric: true },
            { header: 'p95', cell: (row) => formatMs(row.p95_ms), numeric: true },
          ]}
        />
      ) : null}
      <p className="note">Time from the request to the model's last token, for answered calls; percentiles within 5%.</p>
    </Section>
  );
}
