import type { ChatRequest } from './types';

/**
 * The most a chat request's input can count, in tokens: the UTF-8 bytes of its messages' text, tool
 * definitions and response format, plus a few per message for the chat template. A token is at least one
 * byte of text, so this bounds every tokenizer (it is about four times the real count of English text).
 */
export function inputTokensAtMost(request: Pick<ChatRequest, 'messages' | 'tools' | 'response_format'>): number {
  let bytes = 0;
  for (const message of request.messages) {
    bytes += 8 + byteLength(message.role) + byteLength(message.name);
    if (typeof message.content === 'string') bytes += byteLength(message.content);
    else if (Array.isArray(message.content)) bytes += byteLength(JSON.stringify(message.content));
    if (message.tool_calls) bytes += byteLength(JSON.stringify(message.tool_calls));
    bytes += byteLength(message.tool_call_id);
  }
  if (request.tools?.length) bytes += byteLength(JSON.stringify(request.tools));
  if (request.response_format) bytes += byteLength(JSON.stringify(request.response_format));
  return bytes + 8;
}

/** A usual count of the tokens of `bytes` bytes of text (four bytes a token), for what an upstream never reported. */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}

export function byteLength(text: string | undefined | null): number {
  return text ? Buffer.byteLength(text) : 0;
}
