import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

const example = fileURLToPath(new URL('../../../examples/migrate-from-openai.ts', import.meta.url));
let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  // A model that calls get_tide when it is offered and has no tool result yet, and otherwise answers.
  upstream = await createFakeOpenAIUpstream((request) => {
    const last = request.messages.at(-1);
    if (request.tools?.length && last.role === 'user') return { toolCalls: [{ name: 'get_tide', arguments: { port: 'Brest' } }] };
    return {
      content:
        last.role === 'tool' ? 'Low tide in Brest at 06:12.' : `Answer to: ${typeof last.content === 'string' ? last.content : 'parts'}`,
    };
  });
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ openai: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

it('runs examples/migrate-from-openai.ts against Fathom by changing only key, base URL and model', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', example], {
    env: { ...process.env, OPENAI_API_KEY: server.apiKey, OPENAI_BASE_URL: server.baseURL, MODEL: 'openai/gpt-4o-mini' },
    timeout: 20_000,
  });
  expect(stdout).toContain('completion: Answer to: What causes ocean tides?');
  expect(stdout).toContain('streamed: Answer to: Name three sea creatures.');
  expect(stdout).toContain('tool call: get_tide({"port":"Brest"})');
  expect(stdout).toContain('after tool: Low tide in Brest at 06:12.');
  expect(stdout).toContain('responses: Answer to: Say hello to a lighthouse keeper.');
  expect(upstream.requests.every((request) => request.model === 'gpt-4o-mini')).toBe(true);
});
