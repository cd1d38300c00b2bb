/** Prints `value` as JSON for scripts (`--json`). */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** Prints rows as aligned columns under a header; numbers are right-aligned. */
export function printTable(headers: string[], rows: Array<Array<string | number>>): void {
  const cells = [headers, ...rows.map((row) => row.map(String))];
  const numeric = headers.map((_, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'));
  const widths = headers.map((_, column) => Math.max(...cells.map((row) => row[column]!.length)));
  for (const row of cells) {
    const line = row.map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)));
    console.log(line.join('  ').trimEnd());
  }
}

/** `2026-11-25 10:04` (UTC) from Unix seconds. */
export function formatTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ');
}
