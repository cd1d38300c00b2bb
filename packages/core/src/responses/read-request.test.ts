import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors';
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
});
