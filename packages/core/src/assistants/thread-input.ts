import { newId, nowSeconds } from '../internal/ids';
import type { Message, TextContent } from './types';
import type { MessageContentParam, MessageCreateParams } from './wire/messages';

/** The client's `content` (a string or text parts) as text content parts. */
function toTextContent(content: MessageContentParam): TextContent[] {
  const text = (value: string): TextContent => ({ type: 'text', text: { value, annotations: [] } });
  return typeof content === 'string' ? [text(content)] : content.map((part) => text(part.text));
}

/** Ids of the files attached for `file_search` in these messages, each once. */
export function fileSearchAttachments(messages: readonly Message[]): string[] {
  const ids = messages.flatMap((message) =>
    (message.attachments ?? []).flatMap((item) =>
      item.file_id && item.tools?.some((tool) => tool.type === 'file_search') ? [item.file_id] : [],
    ),
  );
  return [...new Set(ids)];
}

/** A message written by a client (role user or assistant). */
export function newClientMessage(threadId: string, params: MessageCreateParams): Message {
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
    role: params.role,
    content: toTextContent(params.content),
    assistant_id: null,
    run_id: null,
    attachments: (params.attachments ?? []).map((attachment) => ({
      file_id: attachment.file_id,
      tools: (attachment.tools ?? []).map(() => ({ type: 'file_search' as const })),
    })),
    metadata: params.metadata ?? {},
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
