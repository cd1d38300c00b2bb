import { InvalidRequestError, NotFoundError } from '../errors';
import type { ChatMessage } from '../models/types';
import { ContextBudget } from './context-budget';
import type { ConversationsRepository } from './conversations-repository';
import type { InputItem, StoredItem } from './items';
import type { ResponseRequest } from './read-request';
import type { ItemEntry, ResponsesRepository } from './responses-repository';
import { type FileContents, itemsToMessages } from './to-messages';
import { truncateMessages } from './truncate';

export interface ContextSources {
  responses: ResponsesRepository;
  conversations: ConversationsRepository;
  files?: FileContents;
}

/** What a response runs with: every message the model sees. */
export interface ResponseContext {
  messages: ChatMessage[];
}

const TRUNCATION_HINT = "; send truncation: 'auto' to leave out the oldest turns instead";

function isReference(item: InputItem): boolean {
  return item.type === 'item_reference';
}

/**
 * Checks every `item_reference` of `input` names a stored item of the account (404 naming `input[i].id`)
 * and counts its size against `budget` each time it appears (400 naming the reference that crosses it).
 * One query for all distinct ids; nothing is loaded.
 */
export async function measureReferences(
  sources: ContextSources,
  accountId: string,
  input: readonly InputItem[],
  budget: ContextBudget,
  param = 'input',
): Promise<void> {
  const ids = input.filter(isReference).map((item) => item.id);
  if (ids.length === 0) return;
  const sizes = await sources.responses.itemSizes(accountId, ids);
  input.forEach((item, index) => {
    if (!isReference(item)) return;
    const bytes = sizes.get(item.id);
    if (bytes === undefined) throw new NotFoundError('item', item.id, `${param}[${index}].id`);
    budget.take(bytes, `${param}[${index}].id`);
  });
}

/** `input` with each `item_reference` replaced by the stored item it names, measured first (see `measureReferences`). */
export async function resolveInput(
  sources: ContextSources,
  accountId: string,
  input: readonly InputItem[],
  budget = new ContextBudget(),
  param = 'input',
): Promise<StoredItem[]> {
  await measureReferences(sources, accountId, input, budget, param);
  const ids = input.filter(isReference).map((item) => item.id);
  const items = ids.length ? await sources.responses.loadItems(accountId, ids) : new Map<string, StoredItem>();
  return input.map((item, index) => {
    if (!isReference(item)) return item as StoredItem;
    const found = items.get(item.id);
    if (!found) throw new NotFoundError('item', item.id, `${param}[${index}].id`);
    return found;
  });
}

/**
 * Stored items with their references resolved (one query). A reference whose item was deleted since is
 * left out of a model's context (`keepDangling: false`) or shown as the reference (listings).
 */
export async function resolveStored(
  responses: ResponsesRepository,
  accountId: string,
  items: readonly InputItem[],
  keepDangling: boolean,
): Promise<StoredItem[]> {
  const ids = items.filter(isReference).map((item) => item.id);
  if (ids.length === 0) return items as StoredItem[];
  const found = await responses.loadItems(accountId, ids);
  const out: StoredItem[] = [];
  for (const item of items) {
    const resolved = isReference(item) ? found.get(item.id) : (item as StoredItem);
    if (resolved) out.push(resolved);
    else if (keepDangling) out.push({ type: 'item_reference', id: item.id });
  }
  return out;
}

/** Bytes of entries, a reference counting the size of the item it names (0 when it is gone). */
async function entrySizes(
  sources: ContextSources,
  accountId: string,
  entries: readonly ItemEntry[],
): Promise<(entry: ItemEntry) => number> {
  const ids = entries.filter((entry) => entry.reference).map((entry) => entry.itemId);
  const sizes = ids.length ? await sources.responses.itemSizes(accountId, ids) : new Map<string, number>();
  return (entry) => (entry.reference ? (sizes.get(entry.itemId) ?? 0) : entry.bytes);
}

/**
 * The earlier turns of a request: every input and output item of the `previous_response_id` chain, or the
 * conversation's items, oldest first. Their sizes are counted against `budget` newest first, before any
 * is loaded: over it, `truncation: "auto"` leaves out the oldest (whole responses of a chain, items of a
 * conversation); otherwise 400 naming `previous_response_id` or `conversation`. Answers what loads them.
 */
export async function planEarlier(
  sources: ContextSources,
  accountId: string,
  request: ResponseRequest,
  budget: ContextBudget,
): Promise<() => Promise<StoredItem[]>> {
  const truncate = request.truncation === 'auto';
  if (request.previousResponseId) {
    const links = await sources.responses.chain(accountId, request.previousResponseId);
    const size = await entrySizes(
      sources,
      accountId,
      links.flatMap((link) => link.entries),
    );
    let kept = 0;
    for (const link of [...links].reverse()) {
      const bytes = link.entries.reduce((sum, entry) => sum + size(entry), 0);
      if (truncate && !budget.fits(bytes)) break;
      budget.take(bytes, 'previous_response_id', TRUNCATION_HINT);
      kept++;
    }
    const previous = request.previousResponseId;
    return async () => resolveStored(sources.responses, accountId, await sources.responses.chainItems(accountId, previous, kept), false);
  }
  const conversationId = request.conversationId;
  if (conversationId) {
    const entries = await sources.conversations.entries(conversationId);
    const size = await entrySizes(sources, accountId, entries);
    let from: number | undefined;
    for (const entry of [...entries].reverse()) {
      if (truncate && !budget.fits(size(entry))) break;
      budget.take(size(entry), 'conversation', TRUNCATION_HINT);
      from = entry.order;
    }
    if (from === undefined) return async () => [];
    const start = from;
    return async () => resolveStored(sources.responses, accountId, await sources.conversations.itemsFrom(conversationId, start), false);
  }
  return async () => [];
}

/**
 * Checks a request before anything is queued or run: what it continues from exists, its references name
 * items of the account, and everything it pulls in fits the context budget (nothing is loaded).
 */
export async function checkContext(sources: ContextSources, accountId: string, request: ResponseRequest): Promise<void> {
  await checkContinuation(sources, accountId, request);
  const budget = new ContextBudget();
  await measureReferences(sources, accountId, request.input, budget);
  await planEarlier(sources, accountId, request, budget);
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
 * then the new input. Everything pulled in besides the request's own body (references, earlier turns,
 * file text) counts against one `ContextBudget`. With `truncation: "auto"` the oldest turns are dropped
 * to fit `contextTokens`.
 */
export async function buildContext(
  sources: ContextSources,
  accountId: string,
  request: ResponseRequest,
  contextTokens: number,
  budget = new ContextBudget(),
): Promise<ResponseContext> {
  await checkContinuation(sources, accountId, request);
  const input = await resolveInput(sources, accountId, request.input, budget);
  const earlier = await (await planEarlier(sources, accountId, request, budget))();
  const messages = await itemsToMessages([...earlier, ...input], {
    accountId,
    files: sources.files,
    budget,
    firstInput: earlier.length,
    earlierParam: request.previousResponseId ? 'previous_response_id' : 'conversation',
  });
  if (request.instructions) messages.unshift({ role: 'system', content: request.instructions });
  return { messages: request.truncation === 'auto' ? truncateMessages(messages, contextTokens) : messages };
}
