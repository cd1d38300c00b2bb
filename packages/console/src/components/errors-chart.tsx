import { useMemo, useState } from 'react';
import type { UsageErrorRow, UsageErrorsPage } from '../api/types';
import { FiguresTable, RangeSelect, rangeStartDay } from './chart-parts';
import { DayChart, seriesByDay } from './day-chart';
import { Empty, ErrorMessage, Section, useApi, useLoad } from './ui';

type StackBy = 'class' | 'code';

/** `4xx` or `5xx`: what a status says about whose the error was (the request's, or the server's and upstream's). */
const classOf = (row: UsageErrorRow): string => `${Math.floor(row.status / 100)}xx`;

const codeOf = (row: UsageErrorRow): string => `${row.status} ${row.code ?? ''}`.trim();

/**
 * The account's requests answered with an error, per day (`GET /v1/usage/errors`), stacked by status class
 * (4xx, 5xx) or by status and code, with every day's figures in a table.
 */
export function ErrorsSection() {
  const api = useApi();
  const [range, setRange] = useState<number>(30);
  const [stackBy, setStackBy] = useState<StackBy>('class');
  const errors = useLoad((signal) => api.get<UsageErrorsPage>('/v1/usage/errors', { start_date: rangeStartDay(range) }, signal), [range]);
  const rows = useMemo(() => errors.data?.data ?? [], [errors.data]);
  const chart = useMemo(
    () => seriesByDay(rows, stackBy === 'class' ? classOf : codeOf, (row) => row.requests, 6, range),
    [rows, stackBy, range],
  );
  const total = rows.reduce((sum, row) => sum + row.requests, 0);
  const label = `Errors per day, by ${stackBy === 'class' ? 'status class' : 'status and code'}`;

  return (
    <Section title="Errors">
      <div className="chart-controls">
        <RangeSelect id="errors-range" value={range} onChange={setRange} />
        <div role="radiogroup" aria-labelledby="errors-stack-by" className="inline">
          <span id="errors-stack-by">Stack by</span>
          <label>
            <input type="radio" name="errors-stack-by" checked={stackBy === 'class'} onChange={() => setStackBy('class')} /> 4xx / 5xx
          </label>
          <label>
            <input type="radio" name="errors-stack-by" checked={stackBy === 'code'} onChange={() => setStackBy('code')} /> code
          </label>
        </div>
        <span>
          Total: <strong>{total}</strong>
        </span>
      </div>
      <ErrorMessage error={errors.error} />
      {errors.data && rows.length === 0 ? <Empty>No requests answered with an error in this range.</Empty> : null}
      {rows.length > 0 ? (
        <figure>
          <figcaption>{label}</figcaption>
          <DayChart label={label} days={chart.days} series={chart.series} stacked />
        </figure>
      ) : null}
      {rows.length > 0 ? (
        <FiguresTable
          label="Errors per day, status and code"
          rows={rows}
          rowKey={(row) => `${row.date}-${row.status}-${row.code}`}
          columns={[
            { header: 'Day', cell: (row) => row.date },
            { header: 'Status', cell: (row) => row.status, numeric: true },
            { header: 'Code', cell: (row) => row.code ?? '—' },
            { header: 'Requests', cell: (row) => row.requests, numeric: true },
          ]}
        />
      ) : null}
      <p className="note">
        Requests made with this account's keys and answered 400–599 (a refused key belongs to no account; an error inside a stream that
        began with 200 is not counted).
      </p>
    </Section>
  );
}
