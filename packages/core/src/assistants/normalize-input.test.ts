import { describe, expect, it } from 'vitest';
import { toResponseFormat, toToolChoice, toToolResources, toTools } from './normalize-input';

describe('from validated params to stored objects', () => {
  it('keeps file_search options and a function with its schema, filling defaults and dropping fields Fathom does not know', () => {
    const tools = [
      { type: 'file_search' as const, file_search: { max_num_results: 5, ranking_options: { score_threshold: 0.4 } } },
      {
        type: 'function' as const,
        function: { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } }, strict: true },
      },
      { type: 'function' as const, function: { name: 'ping', description: 'Checks the link.', strict: null, extra: 'x' }, extra: 1 },
    ];
    expect(toTools(tools)).toEqual([
      { type: 'file_search', file_search: { max_num_results: 5, ranking_options: { ranker: 'auto', score_threshold: 0.4 } } },
      {
        type: 'function',
        function: { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } }, strict: true },
      },
      {
        type: 'function',
        function: { name: 'ping', description: 'Checks the link.', parameters: { type: 'object', properties: {} }, strict: null },
      },
    ]);
    expect(toTools(null)).toEqual([]);
  });

  it('keeps each store id once, and only the known parts of tool resources, response formats and tool choices', () => {
    expect(toToolResources({ file_search: { vector_store_ids: ['vs_a', 'vs_b', 'vs_a'] }, code_interpreter: {} })).toEqual({
      file_search: { vector_store_ids: ['vs_a', 'vs_b'] },
      code_interpreter: {},
    });
    expect(toToolResources(null)).toBeNull();
    const schema = { name: 'answer', schema: { type: 'object' }, strict: true, unknown: 1 };
    expect(toResponseFormat({ type: 'json_schema', json_schema: schema })).toEqual({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: { type: 'object' }, strict: true },
    });
    expect(toResponseFormat(undefined)).toBe('auto');
    expect(toToolChoice({ type: 'function', function: { name: 'lookup' } })).toEqual({ type: 'function', function: { name: 'lookup' } });
    expect(toToolChoice(null)).toBe('auto');
  });
});
