import { InvalidRequestError } from '../errors';
import { RESPONSE_LIMITS } from '../internal/field-limits';

const MiB = 1024 * 1024;

/**
 * The bytes one request may still pull into its context (`RESPONSE_LIMITS.contextBytes`): stored items it
 * refers to — every `item_reference` each time it appears, the `previous_response_id` chain, the
 * conversation — and the text of its files. Everything is counted before it is loaded, so a request over
 * the budget is refused before the server holds what it asked for.
 */
export class ContextBudget {
  #left: number;

  constructor(readonly limit: number = RESPONSE_LIMITS.contextBytes) {
    this.#left = limit;
  }

  /** Bytes still free. */
  get left(): number {
    return this.#left;
  }

  fits(bytes: number): boolean {
    return bytes <= this.#left;
  }

  /** Counts `bytes`; 400 `context_too_large` naming `param` when they do not fit. */
  take(bytes: number, param: string, hint = ''): void {
    if (bytes > this.#left) {
      const limit = this.limit % MiB === 0 ? `${this.limit / MiB} MiB` : `${this.limit} bytes`;
      throw new InvalidRequestError(
        `Invalid '${param}': this request would pull in more than ${limit} of stored items and file text ` +
          `(item references each time they appear, earlier responses, conversation items, extracted files)${hint}.`,
        param,
        'context_too_large',
      );
    }
    this.#left -= bytes;
  }
}
