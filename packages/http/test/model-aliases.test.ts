import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow } from './agents-workflows';
import { type AgentEnvelope, json, startFathom, type TestFathom, type UsageBody } from './harness';

/** An unmodified OpenAI app: only the key and the base URL change; model ids stay OpenAI's. */
describe('model ids of an unmodified OpenAI app (FATHOM_MODEL_ALIASES, FATHOM_DEFAULT_VENDOR)', () => {
  let upstream: FakeUpstream;
  let server: TestFathom;
  beforeAll(async () => {
    upstream = await createFakeOpenAIUpstream((request) => ({ content: `answered by ${request.model}` }), {
      models: ['gpt-4o-mini', 'text-embedding-3-small'],
      embeddingDimensions: 8,
    });
    server = await startFathom({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ openai: { type: 'openai', baseUrl: upstream.baseUrl } }),
        FATHOM_MODEL_ALIASES: JSON.stringify({ 'gpt-4o-mini': 'openai/gpt-4o-mini', 'my-embedder': 'openai/text-embedding-3-small' }),
        FATHOM_DEFAULT_VENDOR: 'openai',
        OLLAMA_BASE_URL: 'http://127.0.0.1:9/v1',
      },
    });
  });
  afterAll(async () => {
    await server?.close({ keepData: false });
    await upstream?.close();
  });

  const upstreamModels = () =>
    upstream.server.requests.filter((request) => request.path === '/v1/chat/completions').map((request) => request.json.model);

  it('chat completions: an alias and a bare id both reach the vendor, and the answer names the model that answered', async () => {
    const completion = await server.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]!.message.content).toBe('answered by gpt-4o-mini');
    expect(completion.model).toBe('openai/gpt-4o-mini');
    const stream = await server.client.chat.completions.create({
      model: 'gpt-4.1',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      expect(chunk.model).toBe('openai/gpt-4.1');
    }
    expect(text).toBe('answered by gpt-4.1');
    expect(upstreamModels().slice(-2)).toEqual(['gpt-4o-mini', 'gpt-4.1']);
    const usage = await server.request('/v1/usage');
    expect((await json<UsageBody>(usage)).data.map((row) => row.model)).toEqual(
      expect.arrayContaining(['openai/gpt-4o-mini', 'openai/gpt-4.1']),
    );
  });

  it('responses, assistants and agents accept the same ids', async () => {
    const response = await server.client.responses.create({ model: 'gpt-4o-mini', input: 'hi' });
    expect(response.output_text).toBe('answered by gpt-4o-mini');
    const assistant = await server.client.beta.assistants.create({ model: 'gpt-4o-mini', instructions: 'Be brief.' });
    const run = await server.client.beta.threads.createAndRunPoll({
      assistant_id: assistant.id,
      thread: { messages: [{ role: 'user', content: 'hi' }] },
    });
    expect(run.status).toBe('completed');
    const messages = await server.client.beta.threads.messages.list(run.thread_id);
    expect(messages.data[0]!.content[0]).toMatchObject({ type: 'text', text: { value: 'answered by gpt-4o-mini' } });
    const created = await server.request('/v1/agents', {
      method: 'POST',
      json: { name: 'aliased', workflow: ordersWorkflow({ model: 'gpt-4o-mini', variables: [] }) },
    });
    const { agent } = await json<AgentEnvelope>(created);
    const published = await server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' });
    expect(published.status).toBe(200);
    const agentRun = await server.request(`/v1/agents/${agent.id}/run`, { method: 'POST', json: { message: 'hi' } });
    expect(agentRun.status).toBe(200);
    expect(upstreamModels().at(-1)).toBe('gpt-4o-mini');
  });

  it('still refuses an id whose vendor is unknown, naming the field', async () => {
    const error = await server.client.chat.completions
      .create({ model: 'azure/gpt-4o', messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.error).toMatchObject({ param: 'model', code: 'model_not_found' });
  });

  it('GET /v1/models lists the aliases next to the vendor models', async () => {
    const ids = (await server.client.models.list()).data.map((model) => model.id);
    expect(ids).toEqual(expect.arrayContaining(['openai/gpt-4o-mini', 'gpt-4o-mini', 'my-embedder']));
    expect(await server.client.models.retrieve('gpt-4o-mini')).toMatchObject({ id: 'gpt-4o-mini', owned_by: 'openai' });
  });

  it('embeddings say which model answered: Fathom’s embedder for a bare OpenAI name, the vendor’s model for an alias', async () => {
    const local = await server.client.embeddings.create({ model: 'text-embedding-3-small', input: 'tide pools' });
    expect(local.model).toBe(server.fathom.embedder.id);
    expect(local.model).not.toBe('text-embedding-3-small');
    expect(local.data[0]!.embedding).toHaveLength(server.fathom.embedder.dimensions);
    const remote = await server.client.embeddings.create({ model: 'my-embedder', input: 'tide pools' });
    expect(remote.model).toBe('openai/text-embedding-3-small');
    expect(remote.data[0]!.embedding).toHaveLength(8);
  });
});
