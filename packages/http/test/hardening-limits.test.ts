import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ordersWorkflow } from './agents-workflows';
import { FAKE_MODEL, startAssistantsTestBed, type AssistantsTestBed } from './assistants-fake-model';
import { type AgentEnvelope, type ErrorBody, json } from './harness';

const long = (length: number) => 'x'.repeat(length);

/** The SDK call's error: 400 `string_above_max_length` naming `param`. */
async function expectTooLong(call: Promise<unknown>, param: string, max: number) {
  const error = await call.then(
    () => null,
    (caught) => caught,
  );
  expect(error).toBeInstanceOf(OpenAI.BadRequestError);
  expect(error.error).toMatchObject({ param, code: 'string_above_max_length', type: 'invalid_request_error' });
  expect(error.message).toContain(`maximum length ${max}`);
}

describe('text caps as OpenAI sets them (names 256, instructions and content 256,000)', () => {
  let bed: AssistantsTestBed;
  let client: OpenAI;
  beforeAll(async () => {
    bed = await startAssistantsTestBed();
    client = bed.client;
  });
  afterAll(() => bed.close());

  it('vector stores: name up to 256 characters, description up to 512', async () => {
    expect((await client.vectorStores.create({ name: long(256) })).name).toHaveLength(256);
    await expectTooLong(client.vectorStores.create({ name: long(257) }), 'name', 256);
    const store = await client.vectorStores.create({ name: 'ok' });
    await expectTooLong(client.vectorStores.update(store.id, { name: long(2 * 1024 * 1024) }), 'name', 256);
    await expectTooLong(client.post('/vector_stores', { body: { name: 'ok', description: long(513) } }), 'description', 512);
    expect((await client.vectorStores.retrieve(store.id)).name).toBe('ok');
  });

  it('assistants: name 256, description 512, instructions 256,000', async () => {
    const ok = await client.beta.assistants.create({ model: FAKE_MODEL, name: long(256), instructions: long(256_000) });
    expect(ok.instructions).toHaveLength(256_000);
    await expectTooLong(client.beta.assistants.create({ model: FAKE_MODEL, name: long(257) }), 'name', 256);
    await expectTooLong(client.beta.assistants.create({ model: FAKE_MODEL, description: long(513) }), 'description', 512);
    await expectTooLong(client.beta.assistants.create({ model: FAKE_MODEL, instructions: long(256_001) }), 'instructions', 256_000);
    await expectTooLong(client.beta.assistants.update(ok.id, { instructions: long(2_000_000) }), 'instructions', 256_000);
    expect((await client.beta.assistants.retrieve(ok.id)).instructions).toHaveLength(256_000);
  });

  it('threads, messages and runs: content and instructions 256,000', async () => {
    const assistant = await client.beta.assistants.create({ model: FAKE_MODEL });
    await expectTooLong(
      client.beta.threads.create({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'user', content: long(256_001) },
        ],
      }),
      'messages[1].content',
      256_000,
    );
    const thread = await client.beta.threads.create({ messages: [{ role: 'user', content: long(256_000) }] });
    await expectTooLong(client.beta.threads.messages.create(thread.id, { role: 'user', content: long(256_001) }), 'content', 256_000);
    await expectTooLong(
      client.beta.threads.messages.create(thread.id, {
        role: 'user',
        content: [
          { type: 'text', text: long(200_000) },
          { type: 'text', text: long(56_001) },
        ],
      }),
      'content',
      256_000,
    );
    await expectTooLong(
      client.beta.threads.runs.create(thread.id, { assistant_id: assistant.id, additional_instructions: long(256_001) }),
      'additional_instructions',
      256_000,
    );
    await expectTooLong(
      client.beta.threads.runs.create(thread.id, {
        assistant_id: assistant.id,
        additional_messages: [{ role: 'user', content: long(256_001) }],
      }),
      'additional_messages[0].content',
      256_000,
    );
    await expectTooLong(
      client.beta.threads.createAndRun({
        assistant_id: assistant.id,
        instructions: long(256_001),
        thread: { messages: [{ role: 'user', content: 'hi' }] },
      }),
      'instructions',
      256_000,
    );
    await expectTooLong(
      client.beta.threads.createAndRun({ assistant_id: assistant.id, thread: { messages: [{ role: 'user', content: long(256_001) }] } }),
      'thread.messages[0].content',
      256_000,
    );
    expect((await client.beta.threads.messages.list(thread.id)).data).toHaveLength(1);
  });

  it('responses: instructions 256,000', async () => {
    await expectTooLong(client.responses.create({ model: FAKE_MODEL, input: 'hi', instructions: long(256_001) }), 'instructions', 256_000);
  });

  it('agents: name 256, run message 256,000', async () => {
    const tooLong = await bed.server.request('/v1/agents', { method: 'POST', json: { name: long(257), workflow: ordersWorkflow() } });
    expect(tooLong.status).toBe(400);
    expect((await json<ErrorBody>(tooLong)).error).toMatchObject({ param: 'name', code: 'string_above_max_length' });
    const created = await bed.server.request('/v1/agents', { method: 'POST', json: { name: 'orders', workflow: ordersWorkflow() } });
    const { agent } = await json<AgentEnvelope>(created);
    const renamed = await bed.server.request(`/v1/agents/${agent.id}`, { method: 'POST', json: { name: long(300) } });
    expect(renamed.status).toBe(400);
    await bed.server.request(`/v1/agents/${agent.id}/publish`, { method: 'POST' });
    const run = await bed.server.request(`/v1/agents/${agent.id}/run`, {
      method: 'POST',
      json: { message: long(256_001), variables: { customer_name: 'Ada' } },
    });
    expect(run.status).toBe(400);
    expect((await json<ErrorBody>(run)).error).toMatchObject({ param: 'message', code: 'string_above_max_length' });
  });

  it('metadata and attributes count characters as code points: 512 emoji are a value, 513 are not', async () => {
    const emoji = (count: number) => '🌊'.repeat(count);
    const okMetadata = { [emoji(64)]: emoji(512) };
    expect((await client.vectorStores.create({ name: 'm', metadata: okMetadata })).metadata).toEqual(okMetadata);
    expect((await client.beta.assistants.create({ model: FAKE_MODEL, metadata: okMetadata })).metadata).toEqual(okMetadata);
    expect((await client.conversations.create({ metadata: okMetadata })).metadata).toEqual(okMetadata);
    const file = await client.files.create({ file: new File(['tide'], 'tide.txt'), purpose: 'assistants' });
    const store = await client.vectorStores.create({ name: 'attributes' });
    const attached = await client.vectorStores.files.create(store.id, { file_id: file.id, attributes: { [emoji(64)]: emoji(512) } });
    expect(attached.attributes).toEqual({ [emoji(64)]: emoji(512) });
    for (const call of [
      client.vectorStores.create({ name: 'm', metadata: { note: emoji(513) } }),
      client.beta.assistants.create({ model: FAKE_MODEL, metadata: { note: emoji(513) } }),
      client.conversations.create({ metadata: { note: emoji(513) } }),
      client.vectorStores.files.create(store.id, { file_id: file.id, attributes: { note: emoji(513) } }),
    ]) {
      const error = await call.then(
        () => null,
        (caught) => caught,
      );
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toMatch(/^(metadata|attributes)\.note$/);
    }
    const longKey = await client.vectorStores.create({ name: 'm', metadata: { [emoji(65)]: 'x' } }).catch((caught) => caught);
    expect(longKey).toBeInstanceOf(OpenAI.BadRequestError);
  });
});
