import type { SqlClient } from '../storage';
import type { ConversationsRepository } from './conversations-repository';
import type { ResponseRequest } from './read-request';
import type { ResponseStatus, ResponsesRepository } from './responses-repository';
import { type ResponseObject, type ResponsesEvent, viewResponse } from './run-response';

/** Where a response's outcome is stored. */
export interface OutcomeStore {
  db: SqlClient;
  responses: ResponsesRepository;
  conversations: ConversationsRepository;
}

/**
 * Stores a finished response in one transaction, only while `owner` holds its lease: its object, its
 * output items, a background response's terminal stream event (a reader seeing one sees both) and, in a
 * conversation, the new turn — the input as sent, references as references. A conversation deleted
 * meanwhile is left alone: the response keeps its output. False when the lease was lost (nothing written).
 */
export function storeOutcome(
  store: OutcomeStore,
  accountId: string,
  request: ResponseRequest,
  response: ResponseObject,
  owner: string,
  terminal?: { run: number; event: ResponsesEvent },
): Promise<boolean> {
  return store.db.transaction(async (tx) => {
    const responses = store.responses.in(tx);
    if (!(await responses.update(response.id, response.status as ResponseStatus, viewResponse(response, request.include), owner)))
      return false;
    if (terminal) await responses.appendEvents(response.id, terminal.run, [terminal.event], owner);
    await responses.addItems(response.id, accountId, 'output', response.output);
    if (request.conversationId) {
      await store.conversations.in(tx).addItems(request.conversationId, accountId, [...request.input, ...response.output]);
    }
    return true;
  });
}
