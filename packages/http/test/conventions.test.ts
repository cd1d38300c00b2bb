import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ErrorBody, json, startFathom, type TestFathom } from './harness';

describe('request conventions every route shares', () => {
  let server: TestFathom;
  beforeAll(async () => {
    server = await startFathom();
  });
  afterAll(() => server.close({ keepData: false }));

  it('treats an empty body sent as application/json as no body (DELETE from generic HTTP clients)', async () => {
    const store = await server.client.vectorStores.create({ name: 'to delete' });
    const response = await fetch(`${server.baseURL}/vector_stores/${store.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: store.id, deleted: true });
  });

  it('still refuses a malformed JSON body with a 400 in the OpenAI shape', async () => {
    const response = await fetch(`${server.baseURL}/vector_stores`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
      body: '{"name": ',
    });
    expect(response.status).toBe(400);
    expect((await json<ErrorBody>(response)).error.type).toBe('invalid_request_error');
  });

  it('names nested fields the way OpenAI does, with array indexes in brackets', async () => {
    const response = await server.request('/v1/threads', { method: 'POST', json: { messages: [{ role: 'user' }] } });
    expect(response.status).toBe(400);
    const { error } = await json<ErrorBody>(response);
    expect(error.message).toBe("Missing required parameter: 'messages[0].content'.");
    expect(error.param).toBe('messages[0].content');
  });
});
