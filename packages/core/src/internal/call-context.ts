import { AsyncLocalStorage } from 'node:async_hooks';
import type { SqlClient } from '../storage';

/**
 * Who a model call is made for, beyond the account: the request that caused it and the key it came with.
 * The HTTP edge runs each request inside `withCallContext`; every model call made while serving it (the
 * gateway, a Responses turn, a tool loop, an agent's node) reads it in the one place that charges model
 * calls, so no capability has to pass it along (see docs/decisions/2026-11-25-spend-at-the-model-call.md).
 */
export interface CallContext {
  /** The request id (`x-request-id` when the client sent one, else the server's id). */
  requestId?: string;
  /** The API key the request authenticated with. */
  keyId?: string;
  /** The API family the call belongs to (`chat.completions`, `responses`, `embeddings`…), for usage views. */
  api?: string;
  /**
   * Where a settled call's tokens are counted against the key's `tpm_limit`, when it has one; `tx`: in the
   * caller's transaction (the meter counts them in the one that captures the call).
   */
  countTokens?: (tokens: number, tx?: SqlClient) => Promise<void>;
  /** The key's model allow-list (exact ids and `vendor/*` globs), when it has one. */
  models?: readonly string[];
  /** A line of a batch: the batch's one hold pays for it (at the batch price), so the meter records the call without holding. */
  batchLine?: boolean;
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `fn` with `context` visible to every model call it makes, awaited or not. */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  return storage.run(context, fn);
}

/** The context of the running call, if any. */
export function currentCallContext(): CallContext | undefined {
  return storage.getStore();
}
