const cache = new Map<string, string>();

/**
 * Turns `?` placeholders into PostgreSQL's `$1, $2, …`, leaving `?` inside string literals, quoted
 * identifiers and comments alone. Results are cached per statement text (statements are constants).
 */
export function numberPlaceholders(sql: string): string {
  const cached = cache.get(sql);
  if (cached !== undefined) return cached;
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const char = sql[i]!;
    if (char === "'" || char === '"') {
      const end = closingQuote(sql, i, char);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (char === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (char === '?') {
      out += `$${++n}`;
    } else {
      out += char;
    }
  }
  if (cache.size > 10_000) cache.clear();
  cache.set(sql, out);
  return out;
}

function closingQuote(sql: string, start: number, quote: string): number {
  for (let i = start + 1; i < sql.length; i++) {
    if (sql[i] !== quote) continue;
    if (sql[i + 1] === quote) {
      i++;
      continue;
    }
    return i;
  }
  return sql.length - 1;
}
