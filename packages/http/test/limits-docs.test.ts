/**
 * docs/api.md's limits tables against the code's limits: the request-body table is rendered from
 * BODY_LIMITS and BODY_LIMITS_TABLE and must match the docs row for row, the routes a row names are
 * exactly the routes with that limit, and each documented field limit is the value core enforces.
 */
import { FIELD_LIMITS, MAX_EMBEDDING_INPUTS } from '@fathom/core';
import { readFileSync } from 'node:fs';
import { maxHeaderSize } from 'node:http';
import { describe, expect, it } from 'vitest';
import { BODY_LIMITS, BODY_LIMITS_TABLE, MAX_UPLOAD_BYTES } from '../src/body-limits';
import { formatBytes } from '../src/errors';
import { MAX_JSON_DEPTH } from '../src/json-body';
import { routeTables } from '../src/route-tables';

const apiDoc = readFileSync(new URL('../../../docs/api.md', import.meta.url), 'utf8');

/** The cells of the rows of the `index`-th table after `marker` (header and separator left out). */
function tableAfter(marker: string, index = 0): string[][] {
  const lines = apiDoc.slice(apiDoc.indexOf(marker)).split('\n');
  const tables: string[][][] = [];
  let current: string[][] | undefined;
  for (const line of lines) {
    if (!line.startsWith('|')) {
      current = undefined;
      if (tables.length > index) break;
      continue;
    }
    if (!current) tables.push((current = []));
    current.push(
      line
        .slice(1, -1)
        .split('|')
        .map((cell) => cell.trim()),
    );
  }
  return tables[index]!.slice(2);
}

const thousands = (value: number) => value.toLocaleString('en-US');
const megabytes = (bytes: number) => `${bytes / 1_000_000} MB`;

describe("docs/api.md's limits agree with the code", () => {
  it('the request-body table is the one the code renders', () => {
    const rendered = BODY_LIMITS_TABLE.map(({ family, routes, covers }) => [
      routes ? `${routes.map((route) => `\`${route}\``).join(', ')}${covers ? ` (${covers})` : ''}` : covers!,
      formatBytes(BODY_LIMITS[family]),
    ]);
    rendered.push(['`POST /v1/files` (multipart)', `the file: ${megabytes(MAX_UPLOAD_BYTES)} (413 \`file_too_large\`)`]);
    expect(tableAfter('**Request bodies**')).toEqual(rendered);
  });

  it('a row that names its routes names exactly the routes with that limit, and every route has a listed limit', () => {
    const routes = routeTables('all').map((route) => ({
      name: `${route.method} ${route.path.replace(/:(\w+)/g, '{$1}')}`,
      limit: route.bodyLimit,
    }));
    const limits = new Set<number>(Object.values(BODY_LIMITS));
    for (const route of routes) expect(limits.has(route.limit!), route.name).toBe(true);
    for (const { family, routes: named } of BODY_LIMITS_TABLE) {
      if (!named) continue;
      const withLimit = routes.filter((route) => route.limit === BODY_LIMITS[family]).map((route) => route.name);
      expect(withLimit.sort(), family).toEqual([...named].sort());
    }
  });

  it('the field limits are the ones core and the server enforce', () => {
    const documented = new Map(tableAfter('**Request bodies**', 1).map(([limit, value]) => [limit, value]));
    const { name, description, instructions, content, metadataKeys, metadataKey, metadataValue } = FIELD_LIMITS;
    expect(Object.fromEntries(documented)).toMatchObject({
      'nesting of a JSON body (arrays and objects)': `${MAX_JSON_DEPTH} levels`,
      'request line and headers': `${maxHeaderSize / 1024} KiB (node's default)`,
      '`name` of vector stores, assistants, agents': `${thousands(name)} characters`,
      '`description` of vector stores and assistants': `${thousands(description)} characters`,
      '`instructions` (assistants, runs, responses), `additional_instructions`': `${thousands(instructions)} characters`,
      'message `content` (threads, messages, `additional_messages`), agent run `message`': `${thousands(content)} characters (all text parts together)`,
      '`metadata` / `attributes`': `${metadataKeys} keys, keys ≤ ${metadataKey} characters, values ≤ ${metadataValue} characters`,
      '`input` of `POST /v1/embeddings`': `${thousands(MAX_EMBEDDING_INPUTS)} strings or token arrays`,
      upload: megabytes(MAX_UPLOAD_BYTES),
    });
  });
});
