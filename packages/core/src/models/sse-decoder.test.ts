import { describe, expect, it } from 'vitest';
import { decodeSse } from './sse-decoder';

async function collect(chunks: string[]) {
  async function* source() {
    for (const chunk of chunks) yield new TextEncoder().encode(chunk);
  }
  const events = [];
  for await (const event of decodeSse(source())) events.push(event);
  return events;
}

describe('decodeSse', () => {
  it('decodes plain data events and named events', async () => {
    const events = await collect(['data: {"a":1}\n\n', 'event: message_start\ndata: {"b":2}\n\n', 'data: [DONE]\n\n']);
    expect(events).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: 'message_start', data: '{"b":2}' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('copes with events, lines and CRLF split across chunks', async () => {
    const text = 'event: ping\r\ndata: {"x":"hello world"}\r\n\r\n: comment\r\ndata: second\r\n\r\n';
    const chunks = text
      .split('')
      .reduce<string[]>((acc, ch, i) => (i % 3 === 0 ? [...acc, ch] : [...acc.slice(0, -1), acc[acc.length - 1] + ch]), []);
    expect(await collect(chunks)).toEqual([
      { event: 'ping', data: '{"x":"hello world"}' },
      { event: undefined, data: 'second' },
    ]);
  });

  it('joins multi-line data and flushes a final event without a blank line', async () => {
    expect(await collect(['data: line1\ndata: line2\n\ndata: tail'])).toEqual([
      { event: undefined, data: 'line1\nline2' },
      { event: undefined, data: 'tail' },
    ]);
  });

  it('decodes multi-byte characters split across chunks', async () => {
    const bytes = new TextEncoder().encode('data: héllo 🌊\n\n');
    async function* source() {
      for (const byte of bytes) yield new Uint8Array([byte]);
    }
    const events = [];
    for await (const event of decodeSse(source())) events.push(event);
    expect(events).toEqual([{ event: undefined, data: 'héllo 🌊' }]);
  });
});
