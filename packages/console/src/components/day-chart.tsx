import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/** One line of a chart: a value per day (`null` where that day has none). */
export interface DaySeries {
  label: string;
  values: Array<number | null>;
}

export interface DayChartProps {
  /** What the chart shows, for screen readers (the table next to it has the same figures). */
  label: string;
  /** UTC days, `YYYY-MM-DD`, oldest first: the x axis. */
  days: string[];
  series: DaySeries[];
  /** How a value reads on the axis and in the legend (tokens, money, milliseconds). */
  format?: (value: number) => string;
  height?: number;
  /** Draw `series` as bars stacked on each other (their sum is the bar's height) instead of lines. */
  stacked?: boolean;
  /** Dashed lines drawn over the series, never stacked (a budget, a limit). */
  lines?: DaySeries[];
}

/** Colours that stay apart for the first series and on light and dark backgrounds. */
const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

const dayToSeconds = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 1000;

/**
 * A small time chart of values per day (uPlot on a canvas): one line per series with points, the
 * legend showing the values under the cursor. It follows its container's width.
 */
export function DayChart({
  label,
  days,
  series,
  format = (value) => value.toLocaleString(),
  height = 220,
  stacked = false,
  lines = [],
}: DayChartProps) {
  const container = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const element = container.current;
    if (!element) return;
    // Stacked: series i is drawn at the sum of series 0..i, the tallest first so each smaller one paints over it;
    // the legend still reads each series' own value.
    const drawn = stacked ? stackedOrder(series) : series;
    const heights = stacked ? cumulative(drawn) : drawn.map((line) => line.values);
    const data: uPlot.AlignedData = [days.map(dayToSeconds), ...heights, ...lines.map((line) => line.values)];
    const own = [...drawn, ...lines];
    const formatValue = (_: uPlot, _shown: number | null, seriesIndex: number, index: number | null) => {
      const value = index === null ? null : own[seriesIndex - 1]?.values[index];
      return value === null || value === undefined ? '—' : format(value);
    };
    const bars = uPlot.paths.bars?.({ size: [0.6, 48] });
    const chart = new uPlot(
      {
        width: Math.max(element.clientWidth, 320),
        height,
        // Days are UTC: label them as the table does.
        tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
        scales: {
          // Bars need half a day of room at both ends so the first and last are drawn whole.
          x: stacked ? { time: true, range: (_, min, max) => [min - 43_200, max + 43_200] } : { time: true },
          y: { range: (_, min, max) => [Math.min(0, min), max > 0 ? max * 1.1 : 1] },
        },
        axes: [{}, { values: (_, ticks) => ticks.map((tick) => format(tick)), size: 70 }],
        series: [
          { value: '{YYYY}-{MM}-{DD}' },
          ...drawn.map((line) => {
            const colour = PALETTE[series.indexOf(line) % PALETTE.length]!;
            return stacked
              ? {
                  label: line.label,
                  stroke: colour,
                  fill: `${colour}cc`,
                  width: 1,
                  paths: bars,
                  points: { show: false },
                  value: formatValue,
                }
              : { label: line.label, stroke: colour, width: 2, points: { show: true, size: 6 }, value: formatValue };
          }),
          ...lines.map((line) => ({
            label: line.label,
            stroke: '#1d2430',
            width: 2,
            dash: [6, 4],
            points: { show: false },
            value: formatValue,
          })),
        ],
      },
      data,
      element,
    );
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 320), height }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [days, series, format, height, stacked, lines]);
  return <div className="day-chart" ref={container} role="img" aria-label={label} />;
}

/** The series of a stack, the largest total first (drawn first, at the top of the stack). */
function stackedOrder(series: DaySeries[]): DaySeries[] {
  return [...series].reverse();
}

/** Each series' values raised by those of the series after it: the top of its part of the stack (no bar where 0). */
function cumulative(series: DaySeries[]): Array<Array<number | null>> {
  return series.map((_, index) =>
    series[0]!.values.map((__, day) => series.slice(index).reduce((sum, line) => sum + (line.values[day] ?? 0), 0) || null),
  );
}

/**
 * Rows of `{date, <group>, <value>}` as chart input: every day from the first to the last, and at least the
 * `minDays` days up to the last (days with no row read 0), one series per group, the largest groups first
 * (the rest summed as "other" past `maxSeries`).
 */
export function seriesByDay<Row extends { date: string }>(
  rows: Row[],
  groupOf: (row: Row) => string,
  measure: (row: Row) => number,
  maxSeries = 6,
  minDays = 14,
): { days: string[]; series: DaySeries[] } {
  if (rows.length === 0) return { days: [], series: [] };
  const sorted = rows.map((row) => row.date).sort();
  const days: string[] = [];
  const last = dayToSeconds(sorted.at(-1)!);
  for (let day = Math.min(dayToSeconds(sorted[0]!), last - (minDays - 1) * 86_400); day <= last; day += 86_400) {
    days.push(new Date(day * 1000).toISOString().slice(0, 10));
  }
  const totals = new Map<string, number>();
  for (const row of rows) totals.set(groupOf(row), (totals.get(groupOf(row)) ?? 0) + measure(row));
  const ranked = [...totals.entries()].sort((a, b) => b[1] - a[1]).map(([group]) => group);
  const shown = ranked.length > maxSeries ? ranked.slice(0, maxSeries - 1) : ranked;
  const labels = ranked.length > shown.length ? [...shown, 'other'] : shown;
  const index = new Map(days.map((day, position) => [day, position]));
  const values = labels.map(() => days.map(() => 0));
  for (const row of rows) {
    const group = groupOf(row);
    const line = shown.includes(group) ? labels.indexOf(group) : labels.length - 1;
    const day = index.get(row.date)!;
    const counts = values[line]!;
    counts[day] = (counts[day] ?? 0) + measure(row);
  }
  return { days, series: labels.map((label, line) => ({ label, values: values[line]! })) };
}
