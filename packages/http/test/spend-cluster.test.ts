import { createFakeOpenAIUpstream, type FakeUpstream, startTestPostgres, type TestPostgres } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AccountBody, CreatedAccountBody, LedgerBody } from './harness';
import { type ServeProcess, startServeProcess } from './serve-process';

/*
 * Two `fathom serve` processes on one PostgreSQL database, as behind a load balancer, both serving paid
 * streaming chat completions for one account whose balance covers a few holds: the balance never goes
 * below zero, a refused call never reaches the upstream, and the ledger charges exactly what the upstream
 * reported using, at the price.
 */
const ADMIN = 'fth_spend_cluster_admin';
// Each answer reports 100 prompt and 20 completion tokens: 100 × 1 + 20 × 10 = 300 micro-units.
const CALL_COST = 0.0003;

let postgres: TestPostgres;
let upstream: FakeUpstream;
const nodes: ServeProcess[] = [];

beforeAll(async () => {
  postgres = await startTestPostgres();
  upstream = await createFakeOpenAIUpstream(() => ({
    content: 'a b c d',
    usage: { prompt_tokens: 100, completion_tokens: 20 },
    delayMs: 20,
  }));
  const env = {
    FATHOM_DATABASE_URL: postgres.url,
    FATHOM_ADMIN_KEY: ADMIN,
    FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
    FATHOM_MODEL_PRICES: JSON.stringify({ 'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.00001 } }),
  };
  // One after the other: the first creates the tables.
  nodes.push(await startServeProcess({ env }));
  nodes.push(await startServeProcess({ env }));
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()));
  await upstream?.close();
  await postgres?.close();
});

async function call(node: ServeProcess, path: string, apiKey: string, body?: unknown): Promise<Response> {
  return fetch(`${node.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Every ledger row of the account, paging with `after`. */
async function wholeLedger(node: ServeProcess, apiKey: string): Promise<LedgerBody['data']> {
  const rows: LedgerBody['data'] = [];
  let after: string | undefined;
  for (;;) {
    const page = (await (await call(node, `/v1/account/ledger?limit=100${after ? `&after=${after}` : ''}`, apiKey)).json()) as LedgerBody;
    rows.push(...page.data);
    if (!page.has_more) return rows;
    after = page.data.at(-1)!.id;
  }
}

describe('spend control across two server processes on PostgreSQL', () => {
  it('concurrent paid streams on both nodes never overdraw the balance; the ledger equals the upstream usage', async () => {
    // One hold: the request's bytes at 1 micro-unit + 1000 output tokens at 10 = about 0.01004; 5 of them.
    const balance = 0.0505;
    const created = await call(nodes[0]!, '/v1/admin/accounts', ADMIN, { name: 'race', balance });
    expect(created.status).toBe(200);
    const account = (await created.json()) as CreatedAccountBody;
    const clients = nodes.map((node) => new OpenAI({ apiKey: account.api_key, baseURL: `${node.url}/v1`, maxRetries: 0, timeout: 60_000 }));
    const upstreamBefore = upstream.requests.length;

    const outcomes = await Promise.all(
      Array.from({ length: 60 }, async (_, index) => {
        try {
          const stream = await clients[index % 2]!.chat.completions.create({
            model: 'fake/fake-model',
            messages: [{ role: 'user', content: 'hi' }],
            max_tokens: 1000,
            stream: true,
          });
          for await (const _chunk of stream);
          return 'ok';
        } catch (error) {
          return (error as { code?: string }).code ?? String(error);
        }
      }),
    );
    const ok = outcomes.filter((outcome) => outcome === 'ok').length;
    expect(outcomes.filter((outcome) => outcome !== 'ok').every((outcome) => outcome === 'insufficient_quota')).toBe(true);
    expect(ok).toBeGreaterThanOrEqual(5);
    expect(ok).toBeLessThan(60);
    // A refused call never reached the upstream; each call that did is charged once, exactly its usage.
    const reached = upstream.requests.length - upstreamBefore;
    expect(reached).toBe(ok);

    const left = ((await (await call(nodes[1]!, '/v1/account', account.api_key)).json()) as AccountBody).balance;
    expect(left).toBeGreaterThanOrEqual(0);
    expect(left).toBeCloseTo(balance - reached * CALL_COST, 9);
    const ledger = await wholeLedger(nodes[0]!, account.api_key);
    const sum = ledger.reduce((total, entry) => total + entry.amount, 0);
    expect(sum).toBeCloseTo(left, 9);
    const charges = ledger.filter((entry) => entry.kind === 'charge');
    expect(charges).toHaveLength(reached);
    for (const entry of charges) expect(entry.amount).toBeCloseTo(-CALL_COST, 9);
    // Every hold was settled: as many releases as reserves.
    expect(ledger.filter((entry) => entry.kind === 'release')).toHaveLength(ledger.filter((entry) => entry.kind === 'reserve').length);
  });
});
