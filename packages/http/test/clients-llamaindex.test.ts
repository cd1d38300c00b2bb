import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { OpenAIResponses } from '@llamaindex/openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  upstream = await createFakeOpenAIUpstream([]);
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

describe('LlamaIndex OpenAIResponses', () => {
  it('chats (it sends include: null, truncation: null, store: false) and continues from a stored response', async () => {
    const options = { model: 'fake/gpt-test', apiKey: server.apiKey, baseURL: server.baseURL, maxRetries: 0 };
    upstream.push({ content: 'The quay is 300 metres long.' }, { content: 'About 300 metres, as I said.' });
    const first = await new OpenAIResponses({ ...options, store: true }).chat({
      messages: [{ role: 'user', content: 'How long is the quay?' }],
    });
    expect(first.message.content).toBe('The quay is 300 metres long.');
    const previousResponseId = (first.raw as { id: string }).id;
    const second = await new OpenAIResponses({ ...options, previousResponseId }).chat({
      messages: [{ role: 'user', content: 'Remind me?' }],
    });
    expect(second.message.content).toBe('About 300 metres, as I said.');
    const sent = upstream.requests
      .at(-1)
      .messages.map((message: { role: string; content: string }) => `${message.role}: ${message.content}`);
    expect(sent).toEqual(['user: How long is the quay?', 'assistant: The quay is 300 metres long.', 'user: Remind me?']);
  });
});
