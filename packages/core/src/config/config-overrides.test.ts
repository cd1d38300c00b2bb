import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Fathom } from '../fathom';
import { silentLogger } from '../internal/logger';
import { createFakeOpenAIUpstream, createTestServer, respond } from '../test';
import { loadConfig } from './config';

/**
 * Settings are parsed once by `loadConfig`; every capability reads the typed result. So a value an
 * embedding app passes in `Fathom.open({ config })` (no environment variable at all) reaches the model
 * calls, the embedder and the data tools alike.
 */
describe('Fathom.open({ config }) overrides', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  function dataDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'fathom-config-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it('reach the model calls, the embedder and the data tools without any environment variable', async () => {
    const embeddings = await createFakeOpenAIUpstream([], { embeddingDimensions: 12 });
    cleanups.push(() => embeddings.close());
    // A model upstream that accepts the request and never answers.
    const stuck = await createTestServer({ 'POST /v1/chat/completions': () => undefined });
    cleanups.push(() => stuck.close());
    const provider = await createTestServer({
      'POST /people': (_request, response) => respond.json(response, 200, { items: [{ name: 'Ada Lovelace' }], cost: 0.5 }),
    });
    cleanups.push(() => provider.close());

    const defaults = loadConfig({});
    const fathom = await Fathom.open({
      env: { FATHOM_API_KEY: 'fth_config_overrides_test' },
      config: {
        dataDir: dataDir(),
        embedder: 'openai',
        embeddingModel: 'fake-embedding',
        embeddingApi: { baseUrl: embeddings.baseUrl, batchSize: 2 },
        providers: { stuck: { type: 'openai', baseUrl: `${stuck.url}/v1` } },
        modelCalls: { timeoutMs: 300 },
        toolSources: { ...defaults.toolSources, tools: { 'pronet-profile': { url: `${provider.url}/people`, pricePerItem: 0.1 } } },
      },
      logger: silentLogger,
    });
    cleanups.push(() => fathom.close());
    const accountId = fathom.bootstrap.accountId!;

    // The embedder: built against the configured service, its dimensions probed there.
    expect(fathom.embedder.id).toBe('openai:fake-embedding:12');
    expect(embeddings.server.requests.some((request) => request.path === '/v1/embeddings')).toBe(true);

    // The model calls: the configured timeout answers 504 instead of the default two minutes.
    const started = Date.now();
    await expect(
      fathom.chat.completions.create(accountId, { model: 'stuck/m', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toMatchObject({ status: 504 });
    expect(Date.now() - started).toBeLessThan(10_000);

    // The data tools: the provider-only tool is available and its job calls the configured URL.
    expect(fathom.tools.retrieve('pronet-profile').available).toBe(true);
    const job = await fathom.jobs.create(accountId, 'pronet-profile', { query: 'mathematician' });
    const done = await fathom.jobs.wait(accountId, job.id);
    expect(done.status).toBe('succeeded');
    expect(provider.requests.map((request) => request.json)).toEqual([
      { tool: 'pronet-profile', input: expect.objectContaining({ query: 'mathematician' }) },
    ]);
  });

  it('are parsed once from the environment into typed settings, with a message naming a bad variable', () => {
    const config = loadConfig({
      FATHOM_MODEL_TIMEOUT_MS: '2500',
      FATHOM_EMBEDDING_BASE_URL: 'http://embed.local/v1',
      OPENAI_API_KEY: 'sk-x',
      FATHOM_EMBEDDING_DIMENSIONS: '384',
      FATHOM_TOOLS_PRONET_PROFILE_DETAIL_URL: 'http://p.local/detail',
      FATHOM_TOOLS_PRONET_PROFILE_DETAIL_PRICE_PER_ITEM: '0.3',
      FATHOM_TOOLS_MAPS_SOURCE: 'off',
      FATHOM_TOOLS_LEADS_FINDER_APIFY_ACTOR: 'me/leads',
      FATHOM_TOOLS_MODEL: 'openai/gpt-4o-mini',
    });
    expect(config.modelCalls).toEqual({ timeoutMs: 2500, connections: undefined });
    expect(config.embeddingApi).toMatchObject({ baseUrl: 'http://embed.local/v1', apiKey: 'sk-x', dimensions: 384 });
    expect(config.toolSources.tools['pronet-profile-detail']).toEqual({ url: 'http://p.local/detail', pricePerItem: 0.3 });
    expect(config.toolSources.tools.maps).toEqual({ off: true });
    expect(config.toolSources.tools['leads-finder']).toEqual({ apifyActor: 'me/leads' });
    expect(config.toolSources.nlData.model).toBe('openai/gpt-4o-mini');
    expect(() => loadConfig({ FATHOM_MODEL_TIMEOUT_MS: 'soon' })).toThrow("FATHOM_MODEL_TIMEOUT_MS must be a number, got 'soon'.");
    expect(() => loadConfig({ FATHOM_EMBEDDING_BATCH_SIZE: '0' })).toThrow('FATHOM_EMBEDDING_BATCH_SIZE must be a positive integer');
  });
});
