import { createFakeAnthropicUpstream, createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startFathom, type TestFathom, type UsageBody } from './harness';

let openai: FakeUpstream;
let anthropic: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  openai = await createFakeOpenAIUpstream(
    (request) => ({ content: `echo ${request.messages.at(-1).content}`, usage: { prompt_tokens: 10, completion_tokens: 4 } }),
    {
      models: ['gpt-fake', 'embed-fake'],
      embeddingDimensions: 6,
    },
  );
  anthropic = await createFakeAnthropicUpstream([], { models: ['claude-fake'] });
  server = await startFathom({
    env: {
      FATHOM_PROVIDERS: JSON.stringify({
        fake: { type: 'openai', baseUrl: openai.baseUrl },
        claude: { type: 'anthropic', baseUrl: anthropic.baseUrl },
        fixed: { type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', models: ['listed-in-config'] },
      }),
      OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
    },
  });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await openai?.close();
  await anthropic?.close();
});

describe('GET /v1/models', () => {
  it('lists every provider model as <vendor>/<model>, asking upstreams once per minute', async () => {
    const ids: string[] = [];
    for await (const model of server.client.models.list()) ids.push(model.id);
    expect(ids).toEqual(expect.arrayContaining(['fake/gpt-fake', 'fake/embed-fake', 'claude/claude-fake', 'fixed/listed-in-config']));
    expect(ids.some((id) => id.startsWith('ollama/'))).toBe(false);
    const again = await server.client.models.list();
    expect(again.data.length).toBe(ids.length);
    expect(openai.server.requests.filter((request) => request.path === '/v1/models')).toHaveLength(1);
    expect(anthropic.server.requests.filter((request) => request.path === '/v1/models')).toHaveLength(1);
    const one = await server.client.models.retrieve('claude/claude-fake');
    expect(one).toMatchObject({ id: 'claude/claude-fake', object: 'model', owned_by: 'claude' });
    await expect(server.client.models.retrieve('claude/no-such-model')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});

describe('POST /v1/embeddings', () => {
  it("serves a model without vendor with Fathom's own embedder (base64 as the SDK asks, and float)", async () => {
    const result = await server.client.embeddings.create({ model: 'text-embedding-3-small', input: ['tide pools', 'deep water'] });
    expect(result.object).toBe('list');
    expect(result.model).toBe(server.fathom.embedder.id);
    expect(result.data).toHaveLength(2);
    expect(result.data[0]!.embedding).toHaveLength(server.fathom.embedder.dimensions);
    const expected = (await server.fathom.embedder.embed({ values: ['tide pools'] })).embeddings[0]!;
    expect(result.data[0]!.embedding[0]).toBeCloseTo(expected[0]!, 5);
    expect(result.usage.prompt_tokens).toBeGreaterThan(0);
    const floats = await server.client.embeddings.create({ model: 'fathom', input: 'tide pools', encoding_format: 'float' });
    expect(floats.data[0]!.embedding[3]).toBeCloseTo(expected[3]!, 5);
  });

  it('refuses an empty input with a 400 naming it instead of answering a zero vector', async () => {
    const single = await server.client.embeddings.create({ model: 'fathom', input: '' }).catch((error) => error);
    expect(single.status).toBe(400);
    expect(single.error).toMatchObject({ param: 'input' });
    const batch = await server.client.embeddings.create({ model: 'fathom', input: ['fine', '  '] }).catch((error) => error);
    expect(batch.status).toBe(400);
    expect(batch.message).toContain("'input[1]'");
  });

  it('routes <vendor>/<model> to the provider and refuses vendors without embeddings', async () => {
    const result = await server.client.embeddings.create({ model: 'fake/embed-fake', input: 'hello world' });
    expect(result.model).toBe('fake/embed-fake');
    expect(result.data[0]!.embedding).toHaveLength(6);
    expect(result.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
    expect(openai.server.requests.at(-1)!.json).toMatchObject({ model: 'embed-fake', input: ['hello world'], encoding_format: 'float' });
    const refused = await server.client.embeddings.create({ model: 'claude/claude-fake', input: 'x' }).catch((error) => error);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect(refused.message).toContain('offers no embeddings');
    const unknown = await server.client.embeddings.create({ model: 'nobody/model', input: 'x' }).catch((error) => error);
    expect(unknown).toBeInstanceOf(OpenAI.BadRequestError);
    expect(unknown.message).toContain("'fake'");
  });
});

describe('GET /v1/usage', () => {
  it('records token usage per day and model for the calling account only', async () => {
    const other = await server.newAccount();
    await other.client.chat.completions.create({ model: 'fake/gpt-fake', messages: [{ role: 'user', content: 'one' }] });
    await other.client.chat.completions.create({ model: 'fake/gpt-fake', messages: [{ role: 'user', content: 'two' }] });
    const stream = await other.client.chat.completions.create({
      model: 'fake/gpt-fake',
      messages: [{ role: 'user', content: 'three' }],
      stream: true,
    });
    for await (const _chunk of stream) void _chunk;
    await other.client.embeddings.create({ model: 'fake/embed-fake', input: 'a b c' });
    const today = new Date().toISOString().slice(0, 10);
    const response = await server.request('/v1/usage', { apiKey: other.apiKey });
    expect(response.status).toBe(200);
    const body = await json<UsageBody>(response);
    expect(body.object).toBe('list');
    expect(body.data).toEqual([
      { date: today, model: 'fake/embed-fake', requests: 1, prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
      { date: today, model: 'fake/gpt-fake', requests: 3, prompt_tokens: 30, completion_tokens: 12, total_tokens: 42 },
    ]);
    const filtered = await json<UsageBody>(
      await server.request(`/v1/usage?model=fake/gpt-fake&start_date=${today}&end_date=${today}`, { apiKey: other.apiKey }),
    );
    expect(filtered.data).toHaveLength(1);
    const empty = await json<UsageBody>(await server.request('/v1/usage?end_date=2000-01-01', { apiKey: other.apiKey }));
    expect(empty.data).toEqual([]);
    const mine = await json<UsageBody>(await server.request('/v1/usage'));
    expect(mine.data.some((row) => row.model === 'fake/gpt-fake')).toBe(false);
    expect(mine.data.some((row) => row.model === 'fake/embed-fake')).toBe(true);
    const bad = await server.request('/v1/usage?start_date=yesterday');
    expect(bad.status).toBe(400);
  });
});
