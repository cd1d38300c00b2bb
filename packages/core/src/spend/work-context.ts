import type { Accounts } from '../accounts';
import { type CallContext, withCallContext } from '../internal/call-context';
import type { SqlClient } from '../storage';
import type { KeyRateLimits } from './key-rate-limits';

/** Who started a piece of background work: its account, the API key of the request (null: an account secret or the CLI), that request's id. */
export interface WorkOrigin {
  accountId: string;
  keyId: string | null;
  requestId?: string | null;
  /** The API family charged (`responses`, `assistants`, `agents`, `batches`). */
  api: string;
}

/** Runs `fn` charged to the key that started the work (see `KeyedWork`). */
export type RunAsOrigin = <T>(origin: WorkOrigin, fn: () => Promise<T>) => Promise<T>;

/** Runs work with no key: the work's own context, never the one of whatever request woke the worker. */
export const RUN_WITHOUT_KEY: RunAsOrigin = (origin, fn) =>
  withCallContext({ requestId: origin.requestId ?? undefined, api: origin.api }, fn);

/**
 * The charging context of work a worker runs after the request that started it (a background response,
 * an assistant run taken over by another process, a batch): the key stored on the work is read again
 * (its allow-list and limits as they are now) and every model call of the work is charged to its budget
 * and counted against its `tpm_limit`, exactly as if the request had made it. A key revoked meanwhile
 * still names the work's calls: its budget no longer exists, so they are refused (`insufficient_quota`).
 */
export class KeyedWork {
  readonly #accounts: Accounts;
  readonly #rateLimits: KeyRateLimits;

  constructor(accounts: Accounts, rateLimits: KeyRateLimits) {
    this.#accounts = accounts;
    this.#rateLimits = rateLimits;
  }

  readonly run: RunAsOrigin = async (origin, fn) => withCallContext(await this.contextOf(origin), fn);

  async contextOf(origin: WorkOrigin): Promise<CallContext> {
    const base: CallContext = { requestId: origin.requestId ?? undefined, api: origin.api };
    if (!origin.keyId) return base;
    const key = await this.#accounts.keyGrant(origin.accountId, origin.keyId);
    return {
      ...base,
      keyId: origin.keyId,
      models: key?.models ?? undefined,
      ...(key && key.tpm_limit !== null
        ? { countTokens: (tokens: number, tx?: SqlClient) => this.#rateLimits.addTokens(origin.keyId!, tokens, tx) }
        : {}),
    };
  }
}
