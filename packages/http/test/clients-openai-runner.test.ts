import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { ResponsesToolRunner } from 'openai/helpers/responses-tool-runner';
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

describe("openai v7's ResponsesToolRunner", () => {
  it('runs a function tool loop against Fathom to the final answer', async () => {
    const runner = new ResponsesToolRunner({
      functions: [
        {
          tool: {
            type: 'function',
            name: 'berth',
            description: 'Free berth number',
            parameters: { type: 'object', properties: {}, additionalProperties: false },
            strict: true,
          },
          execute: async () => 'Berth 7 is free',
        },
      ],
    });
    upstream.push({ toolCalls: [{ id: 'call_b', name: 'berth', arguments: {} }] }, { content: 'Use berth 7.' });
    const response = await runner.run(server.client, { model: 'fake/gpt-test', input: 'Which berth is free?' });
    expect(response.output_text).toBe('Use berth 7.');
    const tool = upstream.requests.at(-1).messages.find((message: { role: string }) => message.role === 'tool');
    expect(tool).toMatchObject({ tool_call_id: 'call_b', content: 'Berth 7 is free' });
  });
});
