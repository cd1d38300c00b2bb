import { ExtractionError } from './extraction-error';

/** JSON as indented text (keys and values stay searchable); invalid JSON is an `invalid_file`. */
export function jsonToText(source: string): string {
  let value: unknown;
  try {
    value = JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ExtractionError('invalid_file', `JSON is not valid: ${(error as Error).message}`);
  }
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

/** Parses CSV (RFC 4180 quoting; `,`, `;` or tab, whichever the header line uses most). */
export function parseCsv(source: string): string[][] {
  const firstLine = source.slice(0, source.indexOf('\n') === -1 ? undefined : source.indexOf('\n'));
  const delimiter = [',', ';', '\t'].sort((a, b) => firstLine.split(b).length - firstLine.split(a).length)[0]!;
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < source.length; i++) {
    const char = source[i]!;
    if (quoted) {
      if (char === '"' && source[i + 1] === '"') (field += '"'), i++;
      else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === '') quoted = true;
    else if (char === delimiter) row.push(field), (field = '');
    else if (char === '\n' || char === '\r') {
      if (char === '\r' && source[i + 1] === '\n') i++;
      row.push(field), (field = '');
      if (row.some((cell) => cell !== '')) rows.push(row);
      row = [];
    } else field += char;
  }
  row.push(field);
  if (row.some((cell) => cell !== '')) rows.push(row);
  return rows;
}

/** CSV rows as `header: value` lines, so each row reads as a small record. */
export function csvToText(source: string): string {
  const rows = parseCsv(source.replace(/^\uFEFF/, ''));
  if (rows.length < 2) return rows.map((row) => row.join(', ')).join('\n');
  const [header, ...body] = rows;
  return body
    .map((row) =>
      row
        .map((cell, i) => (header![i] ? `${header![i]}: ${cell}` : cell))
        .filter(Boolean)
        .join('; '),
    )
    .join('\n');
}
