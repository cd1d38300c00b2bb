import type { ToolJob } from '@fathom/core';
import { createFakeOpenAIUpstream, type FakeUpstream, type TestServer } from '@fathom/core/test';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AgentEnvelope, json, type ListBody, type RunEnvelope, startFathom, type TestFathom } from './harness';
import { createFakeOsm } from './tools-fakes';

/** examples/data-tools-agent.json with the placeholders filled for this server. */
function exampleWorkflow(server: TestFathom): any {
  const text = readFileSync(new URL('../../../examples/data-tools-agent.json', import.meta.url), 'utf8')
    .replaceAll('{base_url}', server.url)
    .replaceAll('<API_KEY>', server.apiKey)
    .replaceAll('openai/gpt-4o-mini', 'fake/fake-model');
  return JSON.parse(text);
}

const toolResults = (request: any) =>
  request.messages.filter((message: any) => message.role === 'tool').map((message: any) => JSON.parse(message.content));

describe('examples/data-tools-agent.json: an agent uses the data tools through a Webhook card on {base_url}/v1/tools', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let osm: TestServer;

  beforeAll(async () => {
    osm = await createFakeOsm({ delayMs: 100 });
    upstream = await createFakeOpenAIUpstream((request) => {
      const results = toolResults(request);
      if (results.length === 0)
        return { toolCalls: [{ name: 'find_local_businesses', arguments: { query: 'bakery', location: 'Berlin', limit: 2 } }] };
      const jobId = results[0].job_id;
      const last = results.at(-1);
      if (last.status === 'succeeded')
        return { content: `Found ${last.items.map((item: any) => item.value).join(' and ')} for ${last.cost}.` };
      return { toolCalls: [{ name: 'get_job_result', arguments: { job_id: jobId } }], delayMs: 150 }; // a model takes a moment per turn (10 rounds = 1.5 s of margin)
    });
    server = await startFathom({
      env: {
        AGENT_EGRESS_ALLOW: '127.0.0.1',
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }),
        FATHOM_TOOLS_NOMINATIM_URL: osm.url,
        FATHOM_TOOLS_OVERPASS_URL: `${osm.url}/api/interpreter`,
        FATHOM_TOOLS_SWEEP_MS: '50',
      },
    });
  });
  afterAll(async () => {
    await server.close({ keepData: false });
    await upstream.close();
    await osm.close();
  });

  it('starts a maps job with 202, polls it to succeeded, and answers with the places', async () => {
    const created = await server.request('/v1/agents', { method: 'POST', json: exampleWorkflow(server) });
    expect(created.status).toBe(200);
    const { agent } = await json<AgentEnvelope>(created);
    expect((await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' })).status).toBe(200);
    const response = await server.request(`/v1/agents/${agent.id}/run`, {
      method: 'POST',
      json: { message: 'Find bakeries', variables: { market: 'bakeries', city: 'Berlin' } },
    });
    const { run } = await json<RunEnvelope>(response);
    expect(run, JSON.stringify(run).slice(0, 1500)).toMatchObject({ status: 'completed' });
    expect(run.output).toBe('Found Near Bakery and Bread Hotel for 0.04.');
    const firstResult = toolResults(upstream.requests.at(-1))[0];
    expect(firstResult).toMatchObject({ status: 'queued', estimated_max_cost: 2, job_id: expect.stringMatching(/^job_/) });
    const jobs = await json<ListBody<ToolJob>>(await server.request('/v1/tools/jobs'));
    expect(jobs.data[0]).toMatchObject({ job_id: firstResult.job_id, status: 'succeeded', cost: 0.04 });
  });
});
