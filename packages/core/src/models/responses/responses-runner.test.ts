import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config';
import { SqliteDatabase } from '../../storage';
import { InvalidRequestError } from '../../errors';
import { silentLogger } from '../../internal/logger';
import { createFakeOpenAIUpstream, type FakeUpstream } from '../../test';
import type { SearchHit, StoreSearcher, StoreSearchOptions } from '../../vector';
import { ChatAdapter } from '../chat-adapter';
import { modelsSchema } from '../usage-store';
import { readResponsesBody } from './responses-request';
import { createResponse, runResponse } from './responses-runner';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setup(script: Parameters<typeof createFakeOpenAIUpstream>[0]) {
  const upstream = await createFakeOpenAIUpstream(script);
  const db = new SqliteDatabase({ schemas: [modelsSchema] });
  const chat = new ChatAdapter({
    db,
    config: loadConfig({ FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) }),
    log: silentLogger,
  });
  cleanups.push(async () => {
    await chat.close();
    await db.close();
    await upstream.close();
  });
  return { upstream, chat };
}

/** A StoreSearcher stand-in that records its calls and answers fixed hits. */
function stubSearcher(hits: SearchHit[]) {
  const calls: Array<{ accountId: string; storeIds: string[]; options: StoreSearchOptions }> = [];
  const searcher: StoreSearcher = {
    async search(accountId, storeIds, options) {
      calls.push({ accountId, storeIds, options });
      return hits;
    },
    async waitForIngestion() {
      return true;
    },
  };
  return { searcher, calls };
}

const hit: SearchHit = {
  file_id: 'file-1',
  filename: 'handbook.md',
  score: 0.91,
  attributes: null,
  content: [{ type: 'text', text: 'Refunds are paid within 5 days.' }],
};

describe('readResponsesBody', () => {
  it('maps input, instructions, function tools and json_schema format onto chat', () => {
    const call = readResponsesBody({
      model: 'fake/m',
      instructions: 'Be exact.',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
      tools: [{ type: 'function', name: 'f', parameters: { type: 'object', properties: {} }, strict: true }],
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
      max_output_tokens: 100,
    });
    expect(call.chat.messages).toEqual([
      { role: 'system', content: 'Be exact.' },
      { role: 'user', content: [{ type: 'text', text: 'hi' }] },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ]);
    expect(call.chat.tools).toEqual([
      { type: 'function', function: { name: 'f', parameters: { type: 'object', properties: {} }, strict: true } },
    ]);
    expect(call.chat.response_format).toEqual({
      type: 'json_schema',
      json_schema: { name: 'out', schema: { type: 'object' }, strict: true },
    });
    expect(call.chat.max_tokens).toBe(100);
  });

  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
    [{ conversation: 'conv_1' }, 'conversation'],
    [{ store: true }, 'store'],
    [{ background: true }, 'background'],
    [{ text: { format: { type: 'grammar' } } }, 'text.format.type'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [{ tools: [{ type: 'file_search' }] }, 'tools[0].vector_store_ids'],
    [{ input: [{ type: 'item_reference', id: 'x' }] }, 'input[0].type'],
    [{ include: ['reasoning.encrypted_content'] }, 'include[0]'],
  ])('refuses %j naming the field', (extra, param) => {
    let error: unknown;
    try {
      readResponsesBody({ model: 'fake/m', input: 'hi', ...extra });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect((error as InvalidRequestError).param).toBe(param);
    expect((error as Error).message).toContain(param.split('.')[0]!.split('[')[0]!);
  });
});

describe('runResponse', () => {
  it('answers output items and output_text for a plain input', async () => {
    const { chat, upstream } = await setup([{ content: 'Hello!', usage: { prompt_tokens: 3, completion_tokens: 1 } }]);
    const response: any = await createResponse(
      { chat },
      readResponsesBody({ model: 'fake/m', input: 'Say hello', instructions: 'Friendly.' }),
      { accountId: 'a' },
    );
    expect(response).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'fake/m',
      output_text: 'Hello!',
      usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
    });
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: 'Hello!', annotations: [], logprobs: [] }],
      },
    ]);
    expect(upstream.requests[0].messages).toEqual([
      { role: 'system', content: 'Friendly.' },
      { role: 'user', content: 'Say hello' },
    ]);
  });

  it('executes hosted file_search with the stub searcher in a loop, then answers', async () => {
    const { chat, upstream } = await setup([
      { toolCalls: [{ id: 'call_fs', name: 'file_search', arguments: { query: 'refund delay' } }] },
      { content: 'Within 5 days.' },
    ]);
    const { searcher, calls } = stubSearcher([hit]);
    const body = {
      model: 'fake/m',
      input: 'How fast are refunds?',
      tools: [{ type: 'file_search', vector_store_ids: ['vs_1', 'vs_2'], max_num_results: 20 }],
      include: ['file_search_call.results'],
    };
    const events = [];
    for await (const event of runResponse({ chat, searcher }, readResponsesBody(body), { accountId: 'acct_9' })) events.push(event);
    expect(calls).toEqual([{ accountId: 'acct_9', storeIds: ['vs_1', 'vs_2'], options: { query: 'refund delay', maxNumResults: 8 } }]);
    expect(upstream.requests[0].tools.map((tool: any) => tool.function.name)).toEqual(['file_search']);
    expect(upstream.requests[1].messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_fs',
      content: expect.stringContaining('Refunds are paid within 5 days.'),
    });
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('response.created');
    expect(types[1]).toBe('response.in_progress');
    expect(types).toContain('response.file_search_call.searching');
    expect(types).toContain('response.output_text.delta');
    expect(types.at(-1)).toBe('response.completed');
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    const final: any = events.at(-1)!.response;
    expect(final.output[0]).toMatchObject({
      type: 'file_search_call',
      status: 'completed',
      queries: ['refund delay'],
      results: [{ file_id: 'file-1', filename: 'handbook.md', score: 0.91, text: 'Refunds are paid within 5 days.' }],
    });
    expect(final.output[1]).toMatchObject({ type: 'message' });
    expect(final.output_text).toBe('Within 5 days.');
  });

  it('returns function_call items for the caller to execute', async () => {
    const { chat } = await setup([{ toolCalls: [{ id: 'call_f', name: 'lookup', arguments: { id: 7 } }] }]);
    const response: any = await createResponse(
      { chat },
      readResponsesBody({
        model: 'fake/m',
        input: 'x',
        tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'number' } } } }],
      }),
      { accountId: 'a' },
    );
    expect(response.output).toEqual([
      {
        id: expect.stringMatching(/^fc_/),
        type: 'function_call',
        status: 'completed',
        call_id: 'call_f',
        name: 'lookup',
        arguments: '{"id":7}',
      },
    ]);
    expect(response.output_text).toBe('');
  });
});
