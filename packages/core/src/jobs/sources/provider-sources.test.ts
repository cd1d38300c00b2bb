import { afterAll, describe } from 'vitest';
import { createTestServer, respond, type TestServer } from '../../test';
import { ApifySource } from './apify-source';
import { HttpSource } from './http-source';
import { describeToolSourceConformance } from './tool-source-conformance';

const servers: TestServer[] = [];
const serve = async (routes: Parameters<typeof createTestServer>[0]) => {
  const server = await createTestServer(routes);
  servers.push(server);
  return server;
};
const hang = () => new Promise<void>(() => {});
afterAll(() => Promise.all(servers.map((server) => server.close())));

describe('HttpSource conformance', () => {
  describeToolSourceConformance({
    tool: 'pronet-company',
    input: { name: 'Acme', limit: 5 },
    working: async () =>
      new HttpSource({ url: `${(await serve({ 'POST /': (_, response) => respond.json(response, 200, [{ name: 'Acme GmbH' }]) })).url}/` }),
    failing: async () =>
      new HttpSource({ url: `${(await serve({ 'POST /': (_, response) => respond.json(response, 500, { error: 'boom' }) })).url}/` }),
    hanging: async () => new HttpSource({ url: `${(await serve({ 'POST /': hang })).url}/` }),
  });
});

describe('ApifySource conformance', () => {
  const apify = (runStatus: string, hangs = false) =>
    serve({
      '*': async (request, response) => {
        if (hangs) return hang();
        if (request.method === 'POST')
          return respond.json(response, 201, { data: { id: 'r1', status: 'RUNNING', defaultDatasetId: 'd1' } });
        if (request.path === '/v2/actor-runs/r1')
          return respond.json(response, 200, { data: { id: 'r1', status: runStatus, defaultDatasetId: 'd1', usageTotalUsd: 0.2 } });
        respond.json(response, 200, [{ companyName: 'Acme GmbH', website: 'https://acme.test' }]);
      },
    });
  describeToolSourceConformance({
    tool: 'pronet-company',
    input: { name: 'Acme', limit: 5 },
    working: async () =>
      new ApifySource({ token: 't', actors: { 'pronet-company': 'a/b' }, baseURL: (await apify('SUCCEEDED')).url, pollMs: 10 }),
    failing: async () =>
      new ApifySource({ token: 't', actors: { 'pronet-company': 'a/b' }, baseURL: (await apify('FAILED')).url, pollMs: 10 }),
    hanging: async () =>
      new ApifySource({ token: 't', actors: { 'pronet-company': 'a/b' }, baseURL: (await apify('RUNNING', true)).url, pollMs: 10 }),
  });
});
