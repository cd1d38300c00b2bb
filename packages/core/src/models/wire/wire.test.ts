import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { describeSchemaIssues, type SchemaIssue } from '../../errors/describe-schema-issues';
import { ChatCompletionCreateParams } from './chat-completion-params';
import { ChatCompletionListParams } from './chat-completions';
import { EmbeddingCreateParams } from './embeddings';

// The options the HTTP server validates bodies and query strings with (packages/http/src/validators.ts).
const options = { allErrors: true, verbose: true, discriminator: true, allowUnionTypes: true, addUsedSchema: false };
const bodies = new Ajv({ ...options, coerceTypes: false });
const queries = new Ajv({ ...options, coerceTypes: 'array' });
const chat = bodies.compile(ChatCompletionCreateParams);

const base = { model: 'v/m', messages: [{ role: 'user', content: 'hi' }] };

function refusal(validate: ReturnType<Ajv['compile']>, body: unknown) {
  expect(validate(body)).toBe(false);
  return describeSchemaIssues(validate.errors as SchemaIssue[]);
}

describe('ChatCompletionCreateParams', () => {
  it('accepts what the SDK sends, null on optional fields, and fields it does not declare', () => {
    expect(
      chat({
        ...base,
        messages: [
          { role: 'developer', content: [{ type: 'text', text: 'Be brief.' }] },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Look:' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AA' } },
            ],
          },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'c1', content: 'ok', extra_field: 1 },
        ],
        tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: null } }],
        tool_choice: { type: 'function', function: { name: 'f' } },
        response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
        n: 1,
        audio: null,
        modalities: ['text'],
        temperature: null,
        stop: ['\n'],
        stream_options: null,
        top_k: 20,
      }),
    ).toBe(true);
  });

  it.each([
    [{ n: 2 }, "Invalid 'n': expected 1. Fathom answers one choice per request.", 'n'],
    [{ logprobs: 'yes' }, "Invalid type for 'logprobs': expected a boolean or null.", 'logprobs'],
    [{ top_logprobs: 21 }, "Invalid 'top_logprobs': expected an integer between 0 and 20.", 'top_logprobs'],
    [{ top_logprobs: 1.5 }, "Invalid type for 'top_logprobs': expected an integer or null.", 'top_logprobs'],
    [{ modalities: ['text', 'audio'] }, "Invalid value for 'modalities[1]': expected 'text'.", 'modalities[1]'],
    [
      { audio: { voice: 'alloy', format: 'mp3' } },
      "Unsupported parameter: 'audio'. Fathom's answers carry text; leave 'audio' out.",
      'audio',
    ],
    [{ functions: [{ name: 'f' }] }, "Unsupported parameter: 'functions'. Use 'tools' and 'tool_choice'.", 'functions'],
    [
      { messages: [{ role: 'robot', content: 'x' }] },
      "Invalid value for 'messages[0].role': 'robot'. Supported values are: 'developer', 'system', 'user', 'assistant', 'tool'.",
      'messages[0].role',
    ],
    [{ messages: [{ role: 'tool', content: 'x' }] }, "Missing required parameter: 'messages[0].tool_call_id'.", 'messages[0].tool_call_id'],
    [{ messages: [] }, undefined, 'messages'],
    [
      { tools: [{ type: 'custom', custom: { name: 'grammar' } }] },
      "Invalid value for 'tools[0].type': 'custom'. Supported values are: 'function'.",
      'tools[0].type',
    ],
    [
      { tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [] } } },
      "Invalid value for 'tool_choice.type': 'allowed_tools'. Supported values are: 'function'.",
      'tool_choice.type',
    ],
    [{ tool_choice: 'sometimes' }, "Invalid value for 'tool_choice': expected one of 'none', 'auto', 'required'.", 'tool_choice'],
    [
      { messages: [{ role: 'user', content: [{ type: 'video', video: {} }] }] },
      "Invalid value for 'messages[0].content[0].type': 'video'. Supported values are: 'text', 'image_url', 'input_audio', 'file'.",
      'messages[0].content[0].type',
    ],
    [{ metadata: { k: 5 } }, "Invalid type for 'metadata.k': expected a string.", 'metadata.k'],
  ])('refuses %j naming the field', (body, message, param) => {
    const described = refusal(chat, { ...base, ...body });
    expect(described.param).toBe(param);
    if (message) expect(described.message).toBe(message);
  });
});

describe('the stored completions list query', () => {
  it('coerces the page and takes metadata as an object', () => {
    const validate = queries.compile(ChatCompletionListParams);
    const query: Record<string, unknown> = { limit: '2', order: 'desc', metadata: { project: 'ferry' } };
    expect(validate(query)).toBe(true);
    expect(query).toEqual({ limit: 2, order: 'desc', metadata: { project: 'ferry' } });
    expect(refusal(validate, { metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) })).toMatchObject({
      param: 'metadata',
    });
  });
});

describe('EmbeddingCreateParams', () => {
  const embeddings = bodies.compile(EmbeddingCreateParams);

  it('takes a string, strings, token ids and token-id arrays, and encoding_format null', () => {
    for (const input of ['x', ['x', 'y'], [1, 2], [[1], [2, 3]]])
      expect(embeddings({ model: 'fathom', input, encoding_format: null })).toBe(true);
  });

  it.each([
    [{ input: ['a', 1] }, 'input'],
    [{ input: [] }, 'input'],
    [{ input: Array.from({ length: 2049 }, () => 'x') }, 'input'],
    [{ input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    [{ input: 'x', dimensions: 0 }, 'dimensions'],
  ])('refuses %j naming %s', (body, param) => {
    expect(refusal(embeddings, { model: 'fathom', ...body }).param).toBe(param);
  });
});
