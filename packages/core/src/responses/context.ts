import { InvalidRequestError, NotFoundError } from '../errors';
import type { ChatMessage } from '../models/types';
import type { ConversationsRepository } from './conversations-repository';
import type { InputItem, StoredItem } from './items';
import type { ResponseRequest } from './read-request';
import type { ResponsesRepository } from './responses-repository';
import { type FileContents, itemsToMessages } from './to-messages';
import { truncateMessages } from './truncate';

export interface ContextSources {
  responses: ResponsesRepository;
  conversations: ConversationsRepository;
  files?: FileContents;
}

/** What a response runs with: its resolved input (stored form) and every message the model sees. */
export interface ResponseContext {
  input: StoredItem[];
  messages: ChatMessage[];
}

/** Replaces each `item_reference` by the stored item of the same account it names (404 naming the field otherwise). */
export async function resolveInput(sources: ContextSources, accountId: string, input: readonly InputItem[]): Promise<StoredItem[]> {
  return Promise.all(
    input.map(async (item, index) => {
      if (item.type !== 'item_reference') return item as StoredItem;
      const found = await sources.responses.findItem(accountId, item.id);
      if (!found) throw new NotFoundError('item', item.id, `input[${index}].id`);
      return found;
    }),
  );
}

/** Checks that what a request continues from exists for the account (before anything is queued or run). */
export async function checkContinuation(sources: ContextSources, accountId: string, request: ResponseRequest): Promise<void> {
  if (request.previousResponseId) {
    const previous = await sources.responses.get(accountId, request.previousResponseId);
    if (!previous) throw new NotFoundError('response', request.previousResponseId, 'previous_response_id');
    if (previous.status === 'queued' || previous.status === 'in_progress') {
      throw new InvalidRequestError(
        `Previous response '${previous.id}' is still ${previous.status}; wait for it to finish before continuing from it.`,
        'previous_response_id',
      );
    }
  }
  if (request.conversationId && !(await sources.conversations.get(accountId, request.conversationId))) {
    throw new NotFoundError('conversation', request.conversationId, 'conversation');
  }
}

/**
 * The messages of a response: its `instructions` (never those of earlier responses), then the earlier
 * turns — every input and output item of the `previous_response_id` chain, or the conversation's items —
 * then the new input. With `truncation: "auto"` the oldest turns are dropped to fit `contextTokens`.
 */
export async function buildContext(
  sources: ContextSources,
  accountId: string,
  request: ResponseRequest,
  contextTokens: number,
): Promise<ResponseContext> {
  await checkContinuation(sources, accountId, request);
  const input = await resolveInput(sources, accountId, request.input);
  const earlier = request.previousResponseId
    ? await sources.responses.chainItems(accountId, request.previousResponseId)
    : request.conversationId
      ? await sources.conversations.allItems(request.conversationId)
      : [];
  const messages = await itemsToMessages([...earlier, ...input], { accountId, files: sources.files });
  if (request.instructions) messages.unshift({ role: 'system', content: request.instructions });
  return { input, messages: request.truncation === 'auto' ? truncateMessages(messages, contextTokens) : messages };
}
