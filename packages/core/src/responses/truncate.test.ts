import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../models/types';
import { estimateTokens, isContextLengthError, truncateMessages } from './truncate';

const long = (label: string) => `${label} ${'word '.repeat(200)}`;

describe('truncateMessages', () => {
  it('drops the oldest turns first and keeps system messages and the last message', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Rules.' },
      { role: 'user', content: long('one') },
      { role: 'assistant', content: long('two') },
      { role: 'user', content: long('three') },
      { role: 'user', content: 'last' },
    ];
    const kept = truncateMessages(messages, estimateTokens([messages[0]!, messages[3]!, messages[4]!]) + 5);
    expect(kept.map((message) => String(message.content).split(' ')[0])).toEqual(['Rules.', 'three', 'last']);
  });

  it('never keeps a tool result without the call that asked for it', () => {
    const messages: ChatMessage[] = [
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: long('args') } }] },
      { role: 'tool', tool_call_id: 'c1', content: long('result') },
      { role: 'user', content: 'next' },
    ];
    expect(truncateMessages(messages, 50)).toEqual([{ role: 'user', content: 'next' }]);
    expect(truncateMessages(messages, 100_000)).toEqual(messages);
  });

  it('recognises context-length errors of upstreams', () => {
    expect(isContextLengthError({ code: 'context_length_exceeded', message: 'x' })).toBe(true);
    expect(isContextLengthError(new Error("This model's maximum context length is 8192 tokens"))).toBe(true);
    expect(isContextLengthError(new Error('rate limited'))).toBe(false);
  });
});
