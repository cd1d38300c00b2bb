import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors';
import { FIELD_LIMITS } from '../internal/field-limits';
import { readResponseRequest } from './read-request';

function refusal(body: Record<string, unknown>): string | null {
  try {
    readResponseRequest({ model: 'v/m', input: 'hi', ...body });
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    return (error as InvalidRequestError).param;
  }
  return null;
}

describe('readResponseRequest', () => {
  it('reads null as absent and fills the defaults OpenAI documents', () => {
    const request = readResponseRequest({
      model: 'v/m',
      input: 'hi',
      include: null,
      tools: null,
      temperature: null,
      store: null,
      truncation: null,
    });
    expect(request).toMatchObject({ store: true, background: false, stream: false, truncation: 'disabled', include: [], tools: [] });
    expect(request.temperature).toBeUndefined();
    expect(request.input).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'hi' }],
      },
    ]);
  });

  it('accepts every documented include value and the items the SDKs send back', () => {
    const request = readResponseRequest({
      model: 'v/m',
      include: ['reasoning.encrypted_content', 'web_search_call.action.sources', 'file_search_call.results'],
      input: [
        { role: 'assistant', content: 'earlier' },
        { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c', output: 'done' },
        { type: 'file_search_call', id: 'fs_1', queries: ['q'], status: 'completed', results: null },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { type: 'item_reference', id: 'msg_1' },
        { id: 'msg_2' },
      ],
    });
    expect(request.input.map((item) => item.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'file_search_call',
      'reasoning',
      'item_reference',
      'item_reference',
    ]);
    expect(request.input[0]).toMatchObject({ role: 'assistant', content: [{ type: 'output_text', text: 'earlier', annotations: [] }] });
  });

  it.each([
    [{ model: undefined }, 'model'],
    [{ input: undefined }, 'input'],
    [{ previous_response_id: 'resp_1', conversation: 'conv_1' }, 'conversation'],
    [{ background: true, store: false }, 'background'],
    [{ temperature: 3 }, 'temperature'],
    [{ top_p: '1' }, 'top_p'],
    [{ include: ['nope'] }, 'include[0]'],
    [{ truncation: 'sometimes' }, 'truncation'],
    [{ tools: [{ type: 'computer' }] }, 'tools[0].type'],
    [{ tools: [{ type: 'file_search' }] }, 'tools[0].vector_store_ids'],
    [{ input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    [{ input: [{ type: 'function_call', name: 'f' }] }, 'input[0].call_id'],
    [{ input: [{ role: 'user', content: [{ type: 'input_file', file_url: 'https://x' }] }] }, 'input[0].content[0].file_url'],
    [{ input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'aGk=' }] }] }, 'input[0].content[0].filename'],
    [{ metadata: { key: 5 } }, 'metadata.key'],
    [{ prompt: { id: 'pmpt_1' } }, 'prompt'],
  ])('refuses %j naming %s', (body, param) => {
    expect(refusal(body as Record<string, unknown>)).toBe(param);
  });

  describe('caps every input item type like message content', () => {
    const over = (max: number) => 'x'.repeat(max + 1);
    const texts = (max: number, type: string) => [{ type, text: over(max) }];
    it.each([
      ['input[0].arguments', { type: 'function_call', call_id: 'c', name: 'f', arguments: over(FIELD_LIMITS.arguments) }],
      ['input[0].call_id', { type: 'function_call', call_id: over(FIELD_LIMITS.itemId), name: 'f' }],
      ['input[0].name', { type: 'function_call', call_id: 'c', name: over(FIELD_LIMITS.itemId) }],
      ['input[0].output', { type: 'function_call_output', call_id: 'c', output: over(FIELD_LIMITS.toolOutput) }],
      ['input[0].output', { type: 'function_call_output', call_id: 'c', output: texts(FIELD_LIMITS.toolOutput, 'input_text') }],
      ['input[0].summary', { type: 'reasoning', id: 'rs_1', summary: texts(FIELD_LIMITS.reasoning, 'summary_text') }],
      ['input[0].content', { type: 'reasoning', id: 'rs_1', summary: [], content: texts(FIELD_LIMITS.reasoning, 'reasoning_text') }],
      ['input[0].encrypted_content', { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: over(FIELD_LIMITS.reasoning) }],
      ['input[0].queries', { type: 'file_search_call', id: 'fs_1', queries: [over(FIELD_LIMITS.searchCall)] }],
      ['input[0].results', { type: 'file_search_call', id: 'fs_1', queries: [], results: texts(FIELD_LIMITS.searchCall, 'x') }],
      ['input[0].status', { type: 'file_search_call', id: 'fs_1', queries: [], status: 'x'.repeat(1000) }],
      ['input[0].id', { type: 'item_reference', id: over(FIELD_LIMITS.itemId) }],
      ['input[0].id', { role: 'user', id: over(FIELD_LIMITS.itemId), content: 'hi' }],
      [
        'input[0].content[0].annotations',
        {
          role: 'assistant',
          content: [{ type: 'output_text', text: 'a', annotations: [{ type: 'x', text: over(FIELD_LIMITS.annotations) }] }],
        },
      ],
    ])('refuses an oversized %s', (param, item) => {
      expect(refusal({ input: [item] })).toBe(param);
    });

    it('accepts each field at its cap and keeps only the fields OpenAI defines on a reasoning item', () => {
      const request = readResponseRequest({
        model: 'v/m',
        input: [
          { type: 'function_call', call_id: 'c', name: 'f', arguments: 'a'.repeat(FIELD_LIMITS.arguments) },
          { type: 'function_call_output', call_id: 'c', output: 'o'.repeat(FIELD_LIMITS.toolOutput) },
          {
            type: 'reasoning',
            id: 'rs_1',
            summary: [{ type: 'summary_text', text: 'thought' }],
            encrypted_content: 'e'.repeat(FIELD_LIMITS.reasoning),
            status: 'completed',
            padding: 'p'.repeat(10_000_000),
          },
        ],
      });
      expect(request.input[2]).toEqual({
        id: 'rs_1',
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'thought' }],
        encrypted_content: 'e'.repeat(FIELD_LIMITS.reasoning),
        status: 'completed',
      });
    });
  });
});
