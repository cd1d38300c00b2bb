import { nestingDepth } from '../../internal/nesting-depth';
import { ExtractionError } from './extraction-error';

/** Deepest nesting of arrays and objects a JSON document may have (the top-level value is level 1). */
export const MAX_JSON_DOCUMENT_DEPTH = 256;
/** Deeper than this, the text is compact: two spaces per level would otherwise dwarf the content. */
const MAX_INDENTED_DEPTH = 32;

/**
 * JSON as indented text (keys and values stay searchable). Invalid JSON, and JSON nested deeper than
 * MAX_JSON_DOCUMENT_DEPTH (which no serializer lays out without overflowing its stack), are an `invalid_file`.
 */
export function jsonToText(source: string): string {
  let value: unknown;
  try {
    value = JSON.parse(source.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ExtractionError('invalid_file', `JSON is not valid: ${(error as Error).message}`);
  }
  if (typeof value === 'string') return value;
  const depth = nestingDepth(value, MAX_JSON_DOCUMENT_DEPTH);
  if (depth > MAX_JSON_DOCUMENT_DEPTH)
    throw new ExtractionError('invalid_file', `JSON nests deeper than ${MAX_JSON_DOCUMENT_DEPTH} levels`);
  return depth > MAX_INDENTED_DEPTH ? JSON.stringify(value) : JSON.stringify(value, null, 2);
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
