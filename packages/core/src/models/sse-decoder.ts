/** One decoded server-sent event. `event` is undefined for plain `data:` events. */
export interface DecodedSseEvent {
  event?: string;
  data: string;
}

/**
 * Decodes a byte stream of server-sent events (as model providers send them). Copes with events
 * and lines split across chunks, CRLF or LF line ends, multi-line `data:` fields and comments.
 */
export async function* decodeSse(chunks: AsyncIterable<Uint8Array | string>): AsyncGenerator<DecodedSseEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event: string | undefined;
  let data: string[] = [];
  const dispatch = (): DecodedSseEvent | undefined => {
    const result = data.length ? { event, data: data.join('\n') } : undefined;
    event = undefined;
    data = [];
    return result;
  };
  const handleLine = (line: string): DecodedSseEvent | undefined => {
    if (line === '') return dispatch();
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    return undefined;
  };
  for await (const chunk of chunks) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let start = 0;
    for (;;) {
      const newline = buffer.indexOf('\n', start);
      if (newline === -1) break;
      let line = buffer.slice(start, newline);
      if (line.endsWith('\r')) line = line.slice(0, -1);
      start = newline + 1;
      const decoded = handleLine(line);
      if (decoded) yield decoded;
    }
    buffer = buffer.slice(start);
  }
  buffer += decoder.decode();
  if (buffer) {
    const decoded = handleLine(buffer.replace(/\r$/, ''));
    if (decoded) yield decoded;
  }
  const last = dispatch();
  if (last) yield last;
}
