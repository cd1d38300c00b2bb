import { InvalidRequestError } from '../errors';
import { newId, nowSeconds } from '../internal/ids';
import { normalizeMetadata } from './normalize-input';
import type { Message, MessageAttachment, TextContent } from './types';

/** A message as clients send it: `content` is a string or an array of `{type: 'text', text}` parts. */
export interface MessageInput {
  role?: string;
  content?: unknown;
  attachments?: unknown;
  /** Checked by `normalizeMetadata` (an object of strings, or null). */
  metadata?: unknown;
}

export interface ThreadInput {
  messages?: MessageInput[];
  tool_resources?: unknown;
  metadata?: Record<string, string> | null;
}

/** Turns the client's `content` into text content parts, naming the field when it is unusable. */
function toTextContent(content: unknown, param: string): TextContent[] {
  const text = (value: string): TextContent => ({ type: 'text', text: { value, annotations: [] } });
  if (typeof content === 'string') return [text(content)];
  if (Array.isArray(content) && content.length > 0) {
    return content.map((part, index) => {
      const candidate = part as { type?: unknown; text?: unknown } | null;
      if (candidate && typeof candidate === 'object' && candidate.type === 'text' && typeof candidate.text === 'string')
        return text(candidate.text);
      throw new InvalidRequestError(`Invalid '${param}[${index}]': only {type: 'text', text} parts are supported.`, `${param}[${index}]`);
    });
  }
  throw new InvalidRequestError(`Missing required parameter: '${param}' (a string or an array of text parts).`, param);
}

/**
 * Checks `attachments[]`: each `{file_id, tools?: [{type: 'file_search'}]}`. Files attached with
 * `file_search` go into the thread's vector store; `code_interpreter` is not offered by Fathom (400).
 */
export function normalizeAttachments(value: unknown, param: string): MessageAttachment[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new InvalidRequestError(`Invalid '${param}': expected an array of attachments.`, param);
  return value.map((item, index) => {
    const at = `${param}[${index}]`;
    const attachment = item as { file_id?: unknown; tools?: unknown } | null;
    if (!attachment || typeof attachment !== 'object') throw new InvalidRequestError(`Invalid '${at}': expected an object.`, at);
    if (typeof attachment.file_id !== 'string' || attachment.file_id === '') {
      throw new InvalidRequestError(`Missing required parameter: '${at}.file_id'.`, `${at}.file_id`);
    }
    const tools = attachment.tools ?? [];
    if (!Array.isArray(tools)) throw new InvalidRequestError(`Invalid '${at}.tools': expected an array of tools.`, `${at}.tools`);
    return {
      file_id: attachment.file_id,
      tools: tools.map((tool, toolIndex) => {
        const where = `${at}.tools[${toolIndex}].type`;
        const type = (tool as { type?: unknown } | null)?.type;
        if (type === 'file_search') return { type: 'file_search' as const };
        if (type === 'code_interpreter') {
          throw new InvalidRequestError(`Invalid '${where}': 'code_interpreter' is not supported by Fathom; use 'file_search'.`, where);
        }
        throw new InvalidRequestError(`Invalid '${where}': expected 'file_search'.`, where);
      }),
    };
  });
}

/** Ids of the files attached for `file_search` in these messages, each once. */
export function fileSearchAttachments(messages: readonly Message[]): string[] {
  const ids = messages.flatMap((message) =>
    (message.attachments ?? []).filter((item) => item.tools.some((tool) => tool.type === 'file_search')).map((item) => item.file_id),
  );
  return [...new Set(ids)];
}

/** A message written by a client (role user or assistant), validated; `prefix` names its place in the body. */
export function newClientMessage(threadId: string, input: MessageInput, prefix: string): Message {
  const at = (name: string) => (prefix ? `${prefix}.${name}` : name);
  if (!input || typeof input !== 'object')
    throw new InvalidRequestError(`Invalid '${prefix || 'body'}': expected a message object.`, prefix || null);
  if (input.role !== 'user' && input.role !== 'assistant') {
    throw new InvalidRequestError(`Invalid '${at('role')}': expected 'user' or 'assistant'.`, at('role'));
  }
  const now = nowSeconds();
  return {
    id: newId('msg_'),
    object: 'thread.message',
    created_at: now,
    thread_id: threadId,
    status: 'completed',
    incomplete_details: null,
    completed_at: now,
    incomplete_at: null,
    role: input.role,
    content: toTextContent(input.content, at('content')),
    assistant_id: null,
    run_id: null,
    attachments: normalizeAttachments(input.attachments, at('attachments')),
    metadata: normalizeMetadata(input.metadata, at('metadata')) ?? {},
  };
}

/** A message written by a run (role assistant), in progress until the run's model turn ends. */
export function newRunMessage(threadId: string, assistantId: string, runId: string): Message {
  return {
    id: newId('msg_'),
    object: 'thread.message',
    created_at: nowSeconds(),
    thread_id: threadId,
    status: 'in_progress',
    incomplete_details: null,
    completed_at: null,
    incomplete_at: null,
    role: 'assistant',
    content: [],
    assistant_id: assistantId,
    run_id: runId,
    attachments: [],
    metadata: {},
  };
}
