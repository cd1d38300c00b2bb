import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFathom, type TestFathom } from './harness';

const example = fileURLToPath(new URL('../../../examples/assistants-to-responses.ts', import.meta.url));
let upstream: FakeUpstream;
let server: TestFathom;

beforeAll(async () => {
  // A model that searches the documents for a new question, answers citing the first passage it got,
  // and answers the follow-up from the conversation.
  upstream = await createFakeOpenAIUpstream((request) => {
    const last = request.messages.at(-1);
    if (last.role === 'tool') return { content: `Within five working days${/【\d+:\d+†[^】]*】/.exec(last.content)![0]}.` };
    if (String(last.content).includes('calendar')) return { content: 'Working days, not calendar days.' };
    return { toolCalls: [{ name: 'file_search', arguments: { query: 'refund cancelled tour' } }] };
  });
  server = await startFathom({ env: { FATHOM_PROVIDERS: JSON.stringify({ openai: { type: 'openai', baseUrl: upstream.baseUrl } }) } });
});

afterAll(async () => {
  await server?.close({ keepData: false });
  await upstream?.close();
});

it('runs examples/assistants-to-responses.ts: the same answer and citation both ways', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', example], {
    env: { ...process.env, OPENAI_API_KEY: server.apiKey, OPENAI_BASE_URL: server.baseURL, MODEL: 'openai/gpt-4o-mini' },
    timeout: 30_000,
  });
  expect(stdout).toMatch(/assistants: Within five working days【\d+:\d+†handbook\.md】\./);
  expect(stdout).toMatch(/assistants citations: file-/);
  expect(stdout).toContain('responses: Within five working days.');
  expect(stdout).toContain(`responses citations: handbook.md@${'Within five working days'.length}`);
  expect(stdout).toContain('follow-up: Working days, not calendar days.');
  expect(stdout).toContain('conversation items: message, file_search_call, message, message, message');
});
