import { describe, expect, it } from 'vitest';
import { FileObject } from '../../documents/wire/files';
import { VectorStore } from '../../documents/wire/vector-stores';
import { describeSchemaIssues } from '../../errors';
import { compileCheck } from '../../wire';
import { ConversationItem } from './conversations';
import { Response } from './responses';
import { ResponseStreamEvent } from './stream-events';

/** The issue the declaration finds in `value`, worded as the answer check words it (undefined: it matches). */
function mismatch(schema: Parameters<typeof compileCheck>[0], value: unknown): string | undefined {
  const check = compileCheck(schema);
  return check(value) ? undefined : describeSchemaIssues([...check.issues]).message;
}

const usage = {
  input_tokens: 3,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: 2,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 5,
};

const response = {
  id: 'resp_1',
  object: 'response',
  access_programs: null,
  created_at: 1,
  status: 'completed',
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
  model: 'v/m',
  output: [
    {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [{ type: 'output_text', text: 'hi', annotations: [], logprobs: [] }],
    },
  ],
  output_text: 'hi',
  parallel_tool_calls: true,
  temperature: null,
  top_p: null,
  tool_choice: 'auto',
  tools: [],
  usage,
};

describe('the answer declarations catch the conformance misses of issue 22', () => {
  it('a response: cache_write_tokens required, output_text logprobs required, user and usage never null', () => {
    expect(mismatch(Response, response)).toBeUndefined();
    const { cache_write_tokens: _, ...details } = usage.input_tokens_details;
    expect(mismatch(Response, { ...response, usage: { ...usage, input_tokens_details: details } })).toBe(
      "Missing required parameter: 'usage.input_tokens_details.cache_write_tokens'.",
    );
    const [message] = response.output;
    const { logprobs: _logprobs, ...part } = message!.content[0]!;
    expect(mismatch(Response, { ...response, output: [{ ...message, content: [part] }] })).toBe(
      "Missing required parameter: 'output[0].content[0].logprobs'.",
    );
    expect(mismatch(Response, { ...response, user: null })).toMatch(/'user'/);
    expect(mismatch(Response, { ...response, usage: null })).toMatch(/'usage'/);
    expect(mismatch(Response, { ...response, internal: 1 })).toMatch(/internal/);
  });

  it('response.content_part.added: the output_text part carries logprobs', () => {
    const event = { type: 'response.content_part.added', sequence_number: 2, item_id: 'msg_1', output_index: 0, content_index: 0 };
    expect(
      mismatch(ResponseStreamEvent, { ...event, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }),
    ).toBeUndefined();
    expect(mismatch(ResponseStreamEvent, { ...event, part: { type: 'output_text', text: '', annotations: [] } })).toBe(
      "Missing required parameter: 'part.logprobs'.",
    );
  });

  it('a conversation item from an assistant message the client sent: its output_text part carries logprobs', () => {
    const item = { id: 'msg_2', type: 'message', role: 'assistant', status: 'completed' };
    expect(
      mismatch(ConversationItem, { ...item, content: [{ type: 'output_text', text: 'a', annotations: [], logprobs: [] }] }),
    ).toBeUndefined();
    expect(mismatch(ConversationItem, { ...item, content: [{ type: 'output_text', text: 'a', annotations: [] }] })).toBe(
      "Missing required parameter: 'content[0].logprobs'.",
    );
  });

  it('files and vector stores leave out the optional fields they have no value for, never null', () => {
    const file = { id: 'file-1', object: 'file', bytes: 1, created_at: 1, filename: 'a.txt', purpose: 'assistants', status: 'processed' };
    expect(mismatch(FileObject, file)).toBeUndefined();
    expect(mismatch(FileObject, { ...file, expires_at: null })).toMatch(/'expires_at'/);
    expect(mismatch(FileObject, { ...file, status_details: null })).toMatch(/'status_details'/);
    const store = {
      id: 'vs_1',
      object: 'vector_store',
      created_at: 1,
      name: null,
      description: null,
      usage_bytes: 0,
      file_counts: { in_progress: 0, completed: 0, failed: 0, cancelled: 0, total: 0 },
      status: 'completed',
      expires_at: null,
      last_active_at: 1,
      metadata: {},
    };
    expect(mismatch(VectorStore, store)).toBeUndefined();
    expect(mismatch(VectorStore, { ...store, expires_after: null })).toMatch(/'expires_after'/);
  });
});
