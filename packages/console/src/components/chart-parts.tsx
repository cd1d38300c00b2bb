import type { ReactNode } from 'react';

/* The parts every chart section of the usage page shares: the range picker, the range's start, money, the figures table. */

/** The ranges a chart section offers, in days ending today. */
export const RANGES = [7, 14, 30, 90] as const;

/** Unix seconds of 00:00 UTC `days - 1` days ago: the first day of a range ending today. */
export const rangeStart = (days: number): number => {
  const today = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`) / 1000;
  return today - (days - 1) * 86_400;
};

/** The first day of a range ending today, `YYYY-MM-DD` (the `start_date` of the daily views). */
export const rangeStartDay = (days: number): string => new Date(rangeStart(days) * 1000).toISOString().slice(0, 10);

/** Money as the charts and tables read it: cents when there are some, else the few digits that matter. */
export const formatCost = (value: number): string =>
  value === 0 ? '0' : Math.abs(value) >= 0.01 ? value.toFixed(2) : Number(value.toPrecision(2)).toString();

/** The "Range" select of a chart section: last 7, 14, 30 or 90 days. `id` keeps its label unique on the page. */
export function RangeSelect({ id, value, onChange }: { id: string; value: number; onChange: (days: number) => void }) {
  return (
    <span>
      <label htmlFor={id}>Range</label>{' '}
      <select id={id} value={value} onChange={(event) => onChange(Number(event.target.value))}>
        {RANGES.map((days) => (
          <option key={days} value={days}>
            last {days} days
          </option>
        ))}
      </select>
    </span>
  );
}

/** One column of a figures table: its header, and the cell of a row (`numeric`: right-aligned figures). */
export interface FigureColumn<Row> {
  header: string;
  cell: (row: Row) => ReactNode;
  numeric?: boolean;
}

/** The figures of a chart as a table (what a screen reader reads, and the exact numbers behind the bars). */
export function FiguresTable<Row>({
  label,
  columns,
  rows,
  rowKey,
}: {
  label: string;
  columns: ReadonlyArray<FigureColumn<Row>>;
  rows: readonly Row[];
  rowKey: (row: Row) => string;
}) {
  return (
    <table aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column.header} scope="col">
              {column.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((column) => (
              <td key={column.header} className={column.numeric ? 'number' : undefined}>
                {column.cell(row)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A usage group's key fields (`GET /v1/usage?group_by=…key`). */
export interface KeyOfGroup {
  key_id?: string | null;
  key_name?: string | null;
  key_redacted_value?: string | null;
}

/** How a chart names a key: its name, else its redacted value; a key the account no longer has (revoked) by its id. */
export const keyLabel = (group: KeyOfGroup): string =>
  group.key_id ? (group.key_name ?? group.key_redacted_value ?? `revoked key ${group.key_id}`) : 'background work (no key)';
