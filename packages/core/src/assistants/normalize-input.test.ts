import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../errors';
import { normalizeTools } from './normalize-input';

/** The 400 `normalizeTools` throws for `tools`, as the client sees it. */
function refusal(tools: unknown): { message: string; param: string | null } {
  try {
    normalizeTools(tools);
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidRequestError);
    const { message, param } = error as InvalidRequestError;
    return { message, param };
  }
  throw new Error('normalizeTools accepted the tools');
}

describe('normalizeTools', () => {
  it('keeps file_search options and a function with its schema, filling defaults', () => {
    expect(
      normalizeTools([
        { type: 'file_search', file_search: { max_num_results: 5, ranking_options: { score_threshold: 0.4 } } },
        {
          type: 'function',
          function: { name: 'lookup', parameters: { type: 'object', properties: { id: { type: 'string' } } }, strict: true },
        },
        { type: 'function', function: { name: 'ping', description: 'Checks the link.', strict: null } },
      ]),
    ).toEqual([
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
  });

  it.each([
    [
      [{ type: 'file_search', file_search: { ranking_options: { ranker: 7, score_threshold: 0.5 } } }],
      "Invalid 'tools[0].file_search.ranking_options.ranker': expected a string.",
      'tools[0].file_search.ranking_options.ranker',
    ],
    [
      [{ type: 'file_search', file_search: { max_num_results: '5' } }],
      "Invalid 'tools[0].file_search.max_num_results': expected an integer between 1 and 50.",
      'tools[0].file_search.max_num_results',
    ],
    [
      [{ type: 'file_search' }, { type: 'function', function: { name: 'lookup', parameters: ['id'] } }],
      "Invalid 'tools[1].function.parameters': expected a JSON Schema object.",
      'tools[1].function.parameters',
    ],
    [
      [{ type: 'function', function: { name: 'lookup', parameters: 'none' } }],
      "Invalid 'tools[0].function.parameters': expected a JSON Schema object.",
      'tools[0].function.parameters',
    ],
    [
      [{ type: 'function', function: { name: 'lookup', strict: 'yes' } }],
      "Invalid 'tools[0].function.strict': expected a boolean.",
      'tools[0].function.strict',
    ],
  ])('refuses %j with a 400 naming the field', (tools, message, param) => {
    expect(refusal(tools)).toEqual({ message, param });
  });
});
