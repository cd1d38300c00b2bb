import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { describeSchemaIssues, type SchemaIssue } from '../../errors/describe-schema-issues';
import { AssistantCreateParams } from './assistants';
import { MessageCreateParams } from './messages';
import { StepListParams } from './run-steps';
import { RunCreateParams } from './runs';

// The options the HTTP server validates bodies and query strings with (packages/http/src/validators.ts).
const options = { allErrors: true, verbose: true, discriminator: true, allowUnionTypes: true, addUsedSchema: false };
const bodies = new Ajv({ ...options, coerceTypes: false });
const queries = new Ajv({ ...options, coerceTypes: 'array' });

function refusal(schema: object, body: unknown) {
  const validate = bodies.compile(schema);
  expect(validate(body)).toBe(false);
  return describeSchemaIssues(validate.errors as SchemaIssue[]);
}

describe('the assistants declarations refuse what Fathom cannot do, naming the field', () => {
  it.each([
    [
      { tools: [{ type: 'code_interpreter' }] },
      "Invalid value for 'tools[0].type': 'code_interpreter'. Supported values are: 'file_search', 'function'.",
      'tools[0].type',
    ],
    [
      { tools: [{ type: 'file_search', file_search: { ranking_options: { ranker: 'none', score_threshold: 0.5 } } }] },
      "Invalid value for 'tools[0].file_search.ranking_options.ranker': expected one of 'auto', 'default_2024_08_21'.",
      'tools[0].file_search.ranking_options.ranker',
    ],
    [
      { tools: [{ type: 'file_search', file_search: { max_num_results: 51 } }] },
      "Invalid 'tools[0].file_search.max_num_results': expected an integer between 1 and 50.",
      'tools[0].file_search.max_num_results',
    ],
    [
      { tools: [{ type: 'file_search' }, { type: 'function', function: { name: 'lookup', parameters: ['id'] } }] },
      "Invalid type for 'tools[1].function.parameters': expected an object.",
      'tools[1].function.parameters',
    ],
    [
      { tools: [{ type: 'function', function: { name: 'look up' } }] },
      "Invalid value for 'tools[0].function.name': expected a name of 1 to 64 letters, digits, '_' or '-'.",
      'tools[0].function.name',
    ],
    [
      { tools: [{ type: 'function', function: { name: 'lookup', strict: 'yes' } }] },
      "Invalid type for 'tools[0].function.strict': expected a boolean or null.",
      'tools[0].function.strict',
    ],
    [
      { tool_resources: { file_search: { vector_stores: [{ file_ids: ['file-1'] }] } } },
      "Unsupported parameter: 'tool_resources.file_search.vector_stores'. Create the store with POST /v1/vector_stores and pass its id in 'vector_store_ids'.",
      'tool_resources.file_search.vector_stores',
    ],
    [{ temperature: 3 }, "Invalid 'temperature': expected a number between 0 and 2.", 'temperature'],
    [{ response_format: 'json' }, "Invalid value for 'response_format': expected 'auto'.", 'response_format'],
  ])('assistant %j', (body, message, param) => {
    expect(refusal(AssistantCreateParams, { model: 'v/m', ...body })).toMatchObject({ message, param });
  });

  it('messages: text only, at least one part, attachments for file_search only', () => {
    expect(refusal(MessageCreateParams, { role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] })).toMatchObject({
      message: "Invalid value for 'content[0].type': 'image_url'. Supported values are: 'text'.",
      param: 'content[0].type',
    });
    expect(refusal(MessageCreateParams, { role: 'user', content: [] })).toMatchObject({ param: 'content', code: 'empty_array' });
    expect(refusal(MessageCreateParams, { role: 'system', content: 'x' })).toMatchObject({
      message: "Invalid value for 'role': expected one of 'user', 'assistant'.",
    });
    expect(
      refusal(MessageCreateParams, {
        role: 'user',
        content: 'x',
        attachments: [{ file_id: 'file-1', tools: [{ type: 'code_interpreter' }] }],
      }),
    ).toMatchObject({ param: 'attachments[0].tools[0].type', code: 'invalid_value' });
  });

  it('runs: token budgets of at least 256; include[] takes the one value OpenAI defines, coerced from a query string', () => {
    expect(refusal(RunCreateParams, { assistant_id: 'asst_1', max_prompt_tokens: 100 })).toMatchObject({
      message: "Invalid 'max_prompt_tokens': expected an integer >= 256.",
      param: 'max_prompt_tokens',
    });
    const query = queries.compile(StepListParams);
    const parsed: Record<string, unknown> = { 'include[]': 'step_details.tool_calls[*].file_search.results[*].content', limit: '5' };
    expect(query(parsed)).toBe(true);
    expect(parsed).toEqual({ 'include[]': ['step_details.tool_calls[*].file_search.results[*].content'], limit: 5 });
    expect(query({ 'include[]': 'step_details.other' })).toBe(false);
  });
});
