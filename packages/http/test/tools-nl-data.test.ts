import { createFakeOpenAIUpstream, createTestServer, respond, type FakeUpstream, type TestServer } from '@fathom/core/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AccountBody, json, type StartedJobBody, startFathom, type TestFathom } from './harness';
import { pollJob } from './tools-fakes';

describe('nl-data: model plan, pages through the egress guard, items validated against the plan', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let pages: TestServer;

  beforeAll(async () => {
    pages = await createTestServer({
      'GET /museums': (_, response) =>
        respond.text(
          response,
          200,
          '<html><body><ul><li>Pergamon Museum: open 10-18</li><li>Neues Museum: open 10-20</li></ul><script>ignored()</script></body></html>',
          'text/html',
        ),
    });
    upstream = await createFakeOpenAIUpstream((request) => {
      const system = String(request.messages[0].content);
      if (system.startsWith('You plan')) {
        const proposes = String(request.messages[1].content).includes('No pages given');
        return {
          content: JSON.stringify({
            item_type: 'museum',
            item_schema: {
              type: 'object',
              properties: { value: { type: 'string' }, opening_hours: { type: 'string' } },
              required: ['value', 'opening_hours'],
            },
            instructions: 'One item per museum.',
            ...(proposes ? { urls: [`${pages.url}/museums`, 'ftp://not-http.example/list'] } : {}),
          }),
          usage: { prompt_tokens: 400, completion_tokens: 100 },
        };
      }
      const page = String(request.messages[1].content);
      expect(page).toContain('Pergamon Museum: open 10-18');
      expect(page).not.toContain('ignored()');
      return {
        content:
          '```json\n' +
          JSON.stringify({
            items: [
              { value: 'Pergamon Museum', opening_hours: '10-18' },
              { value: 'Neues Museum', opening_hours: '10-20' },
              { value: 'Broken', opening_hours: 7 },
            ],
          }) +
          '\n```',
        usage: { prompt_tokens: 900, completion_tokens: 100 },
      };
    });
    server = await startFathom({
      env: {
        AGENT_EGRESS_ALLOW: '127.0.0.1',
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        FATHOM_TOOLS_MODEL: 'fake/fake-model',
        FATHOM_TOOLS_SWEEP_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await upstream.close();
    await pages.close();
  });

  it('extracts items valid against the plan and bills pages plus tokens', async () => {
    const response = await server.request('/v1/tools/nl-data', {
      method: 'POST',
      json: { description: 'Opening hours of the museums listed on this page', urls: [`${pages.url}/museums`] },
    });
    expect(response.status).toBe(202);
    const job = await pollJob(server.request, (await json<StartedJobBody>(response)).data.poll_url);
    expect(job.status).toBe('succeeded');
    expect(job.result?.items).toEqual([
      { type: 'museum', value: 'Pergamon Museum', opening_hours: '10-18', source_url: `${pages.url}/museums` },
      { type: 'museum', value: 'Neues Museum', opening_hours: '10-20', source_url: `${pages.url}/museums` },
    ]);
    expect(job.result?.rejected_items).toBe(1);
    expect(job.result?.plan).toMatchObject({ item_type: 'museum' });
    expect(job.cost).toBeCloseTo(0.02 + (1500 / 1000) * 0.002, 6);
    expect(upstream.requests[0].model).toBe('fake-model');
  });

  it('reads the pages the plan proposes when none are given', async () => {
    const response = await server.request('/v1/tools/nl-data', {
      method: 'POST',
      json: { description: 'Opening hours of Berlin museums', limit: 1 },
    });
    const job = await pollJob(server.request, (await json<StartedJobBody>(response)).data.poll_url);
    expect(job.status).toBe('succeeded');
    expect(job.result?.items).toEqual([
      { type: 'museum', value: 'Pergamon Museum', opening_hours: '10-18', source_url: `${pages.url}/museums` },
    ]);
    expect(job.result?.pages).toEqual([{ url: `${pages.url}/museums`, status: 'read' }]);
  });

  it('fails with nothing billed when no page can be read through the egress guard', async () => {
    const before = (await json<AccountBody>(await server.request('/v1/account'))).balance;
    const response = await server.request('/v1/tools/nl-data', {
      method: 'POST',
      json: { description: 'Prices listed on the internal admin page', urls: ['http://10.0.0.1/admin'] },
    });
    const job = await pollJob(server.request, (await json<StartedJobBody>(response)).data.poll_url);
    expect(job).toMatchObject({ status: 'failed', error: { code: 'no_pages' } });
    expect(job.error?.message).toContain('destination_not_allowed');
    expect((await json<AccountBody>(await server.request('/v1/account'))).balance).toBe(before);
  });
});
