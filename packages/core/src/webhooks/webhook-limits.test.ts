import { monitorEventLoopDelay } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../egress';
import { MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
import { createTestServer, respond, type TestServer } from '../test';
import type { WebhookCard } from './types';
import { WebhookToolkit } from './webhook-toolkit';

/** A tree `depth` levels deep with `breadth` children per level (about 1.4 MB of JSON at 8 x 4). */
const tree = (depth: number, breadth: number): unknown =>
  depth === 0 ? 'leaf-value' : { name: `level-${depth}`, items: Array.from({ length: breadth }, () => tree(depth - 1, breadth)) };

const NESTED = tree(8, 4);
const BIG_ARRAY = { items: Array.from({ length: 40_000 }, (_, i) => ({ id: i, sku: `SKU-${i}`, note: 'n'.repeat(40) })) };

let server: TestServer;
let guard: EgressGuard;
let toolkit: WebhookToolkit;

beforeAll(async () => {
  server = await createTestServer({
    'GET /api/nested': (_request, response) => respond.json(response, 200, NESTED),
    'GET /api/big': (_request, response) => respond.json(response, 200, BIG_ARRAY),
  });
  guard = new EgressGuard({ allow: ['127.0.0.1'] });
  toolkit = new WebhookToolkit({ egress: guard, sleep: async () => {}, mappingTimeoutMs: 1_000 });
});
afterAll(async () => {
  await toolkit.close();
  await guard.close();
  await server.close();
});

const card = (path: string, responseMapping?: Record<string, string>): WebhookCard => ({
  name: 'Big API',
  config: {
    baseUrl: `${server.url}/api`,
    routes: [{ name: 'call', description: 'd', whenToUse: 'w', method: 'GET', path, responseMapping }],
  },
});

/** Runs `work` while measuring the longest event-loop stall. */
async function withLoopMonitor<T>(work: () => Promise<T>): Promise<{ result: T; maxStallMs: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    const result = await work();
    return { result, maxStallMs: histogram.max / 1e6 };
  } finally {
    histogram.disable();
  }
}

describe('Webhook results are bounded', () => {
  it('a combinatorial mapping ($..*..*..*..*) over a 1.4 MB nested answer neither freezes the server nor floods the result', async () => {
    expect(JSON.stringify(NESTED).length).toBeGreaterThan(1_300_000);
    const { result, maxStallMs } = await withLoopMonitor(() => toolkit.execute(card('/nested', { all: '$..*..*..*..*' }), 'call', {}));
    expect(maxStallMs).toBeLessThan(1_000);
    expect(result.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
    expect(result).toContain("[responseMapping 'all' matched more than 10,000 values; only the first 10,000 are kept.]");
    expect(result).toContain('[Result truncated: it is longer than 100,000 characters; only the first part is shown.]');
  });

  it('stops a mapping that runs past its deadline and answers the full response, cut, saying why', async () => {
    const { result, maxStallMs } = await withLoopMonitor(() =>
      toolkit.execute(card('/nested', { none: '$..*..*..*..nothing' }), 'call', {}),
    );
    expect(maxStallMs).toBeLessThan(1_000);
    expect(result.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
    expect(result.startsWith(JSON.stringify(NESTED, null, 2).slice(0, 50_000))).toBe(true);
    expect(result).toMatch(/\[responseMapping was not applied: evaluating it took longer than 1000 ms, so the full response is shown\./);
    // The toolkit keeps working after the worker was stopped.
    expect(JSON.parse(await toolkit.execute(card('/nested', { name: '$.name', first: '$.items[0].name' }), 'call', {}))).toEqual({
      name: 'level-8',
      first: 'level-7',
    });
  });

  it('cuts a large JSON answer without a mapping and says so (non-JSON text stays cut at 5,000)', async () => {
    const result = await toolkit.execute(card('/big'), 'call', {});
    expect(JSON.stringify(BIG_ARRAY, null, 2).length).toBeGreaterThan(3_000_000);
    expect(result.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
    expect(JSON.stringify(BIG_ARRAY, null, 2).startsWith(result.slice(0, 98_000))).toBe(true);
    expect(result.endsWith('[Result truncated: it is longer than 100,000 characters; only the first part is shown.]')).toBe(true);
  });

  it('keeps the first 10,000 matches of a wildcard path in a worker, exactly as jsonpath-plus orders them', async () => {
    const small = new WebhookToolkit({ egress: guard, maxResultChars: 2_000_000 });
    try {
      const result = await small.execute(card('/big', { skus: '$.items[*].sku', one: '$.items[?(@.id === 7)].sku' }), 'call', {});
      const [json, note] = result.split('\n\n[');
      const parsed = JSON.parse(json!);
      expect(parsed.skus).toHaveLength(10_000);
      expect(parsed.skus.slice(0, 3)).toEqual(['SKU-0', 'SKU-1', 'SKU-2']);
      expect(parsed.one).toEqual(['SKU-7']);
      expect(note).toBe("responseMapping 'skus' matched more than 10,000 values; only the first 10,000 are kept.]");
    } finally {
      await small.close();
    }
  });
});
