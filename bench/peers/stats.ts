/** Small helpers shared by the peer benchmarks: percentiles, ratio ranges, CPU time of a process. */
import { readFileSync } from 'node:fs';

export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** `min–max` of a figure over repeats, with `digits` decimals. */
export function range(values: readonly number[], digits = 2): string {
  const low = Math.min(...values).toFixed(digits);
  const high = Math.max(...values).toFixed(digits);
  return low === high ? low : `${low}–${high}`;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** CPU time (user + system, all threads) a process has used so far, in ms, read from /proc. */
export function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may contain spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  return ((user + system) * 1000) / TICKS_PER_SECOND;
}

/** The machine's load average and core count, for the report header. */
export function machineLoad(): string {
  const [one, five] = readFileSync('/proc/loadavg', 'utf8').split(' ');
  return `load average ${one} (1 min), ${five} (5 min)`;
}
