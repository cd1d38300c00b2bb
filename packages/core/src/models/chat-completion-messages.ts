import { NotFoundError } from '../errors';
import { toPage } from '../storage';
import type { ChatCompletionsContext } from './chat-completions';
import type { ChatContentPart, ChatMessage } from './types';
import type { ChatCompletionMessageListParams, ChatCompletionStoreMessage, ChatCompletionStoreMessagesPage } from './wire/chat-completions';

/**
 * `fathom.chat.completions.messages` (OpenAI's `chat.completions.messages`): the request messages of
 * a stored completion, a page at a time, each with an id `<completion id>-<index>`.
 */
export class ChatCompletionMessages {
  readonly #context: ChatCompletionsContext;

  constructor(context: ChatCompletionsContext) {
    this.#context = context;
  }

  /** Oldest first unless `order: 'desc'`; an `after` that is not a message id of this completion gives an empty page. */
  async list(
    accountId: string,
    completionId: string,
    params: ChatCompletionMessageListParams = {},
  ): Promise<ChatCompletionStoreMessagesPage> {
    const limit = params.limit ?? 20;
    const order = params.order ?? 'asc';
    let after: number | undefined;
    if (params.after !== undefined) {
      const position = params.after.startsWith(`${completionId}-`) ? params.after.slice(completionId.length + 1) : '';
      after = /^\d{1,15}$/.test(position) ? Number(position) : order === 'desc' ? -1 : Number.MAX_SAFE_INTEGER;
    }
    const rows = await this.#context.repository.messages(accountId, completionId, { limit: limit + 1, order, after });
    if (!rows) throw new NotFoundError('chat completion', completionId);
    return toPage(rows, limit, ({ index, message }) => toStoreMessage(`${completionId}-${index}`, message));
  }
}

/** A request message as the list answers it: its text, its text and image parts, and the known fields it had. */
function toStoreMessage(id: string, message: ChatMessage): ChatCompletionStoreMessage {
  const { content } = message;
  const parts = typeof content === 'string' || content === null ? undefined : content;
  return {
    id,
    role: message.role,
    content: typeof content === 'string' || content === null ? content : textOf(content),
    refusal: null,
    content_parts: parts ? parts.flatMap(storedPart) : null,
    ...(message.tool_calls
      ? {
          tool_calls: message.tool_calls.map((call) => ({
            id: call.id,
            type: 'function' as const,
            function: { name: call.function.name, arguments: call.function.arguments },
          })),
        }
      : {}),
    ...(message.name ? { name: message.name } : {}),
    ...(message.tool_call_id ? { tool_call_id: message.tool_call_id } : {}),
  };
}

function textOf(parts: readonly ChatContentPart[]): string {
  return parts.map((part) => (part.type === 'text' ? String(part.text ?? '') : '')).join('');
}

/** A text or image part with its known fields; other parts (audio, files, refusals) are left out. */
function storedPart(part: ChatContentPart): NonNullable<ChatCompletionStoreMessage['content_parts']> {
  if (part.type === 'text') return [{ type: 'text', text: String(part.text ?? '') }];
  if (part.type === 'image_url') {
    const { url, detail } = (part.image_url ?? {}) as { url?: unknown; detail?: unknown };
    return [{ type: 'image_url', image_url: { url: String(url ?? ''), ...(typeof detail === 'string' ? { detail } : {}) } }];
  }
  return [];
}
