import type { Accounts } from '../accounts';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import type { ModelCallsRepository } from './model-calls-repository';
import { type CallUsage, captureHeld, type HeldCall, type ModelCallHolds, type SettleHold } from './model-holds';
import type { SpendBook } from './spend-book';
import type { WriteBehind } from './write-behind';

/** How long a non-streamed call runs on its in-process hold before the hold is written (`docs/decisions/2026-11-26-spend-holds-in-process.md`). */
export const DURABLE_HOLD_AFTER_MS = 5;

/**
 * SQLite's holds (one server process owns the data dir): decided in process by the `SpendBook` (persisted
 * balance and budget read synchronously, plus every hold not yet written), nothing committed before the
 * upstream call. A call that answers within `durableAfterMs` is written once, after its answer left:
 * hold, call row, release, charge and the key's tokens in one op of the write-behind queue (whose commit
 * the key's request count shares). A stream, or a call still running after `durableAfterMs`, has its
 * hold written behind (queued, not awaited) so a process killed mid-call leaves it for the sweep exactly
 * as `DurableHolds` does; its capture is then queued after its answer. The hold stays in the book, so
 * counted as spent, until the write that persists it has committed.
 */
export class BookedHolds implements ModelCallHolds {
  constructor(
    private readonly accounts: Accounts,
    private readonly repository: ModelCallsRepository,
    private readonly book: SpendBook,
    private readonly writes: WriteBehind,
    private readonly log: Logger,
    private readonly durableAfterMs = DURABLE_HOLD_AFTER_MS,
  ) {}

  async take(call: HeldCall): Promise<SettleHold> {
    this.book.hold(call.money, call.row.created_at);
    let inBook = true;
    const leaveBook = () => {
      if (inBook) this.book.release(call.money);
      inBook = false;
    };
    // Whether the hold's rows are written in the transaction so far (committed once its op's `done` says so).
    let holdWritten = false;
    const writeHold = async (tx: SqlClient) => {
      if (holdWritten) return;
      await this.accounts.in(tx).hold(call.money, call.row.created_at, true);
      await this.repository.in(tx).insertHeld(call.row);
      holdWritten = true;
    };
    const queueHold = () => {
      let before = false;
      this.writes.enqueue({
        run: (tx) => {
          before = holdWritten;
          return writeHold(tx);
        },
        undo: () => {
          holdWritten = before;
        },
        done: (committed) => {
          if (committed) leaveBook();
          else holdWritten = false;
        },
      });
    };
    const timer = call.stream ? undefined : setTimeout(queueHold, this.durableAfterMs);
    timer?.unref();
    if (call.stream) queueHold();
    return async (usage, countTokens, charged) => {
      clearTimeout(timer);
      let captured = false;
      let before = false;
      this.writes.enqueue(
        {
          run: async (tx) => {
            before = holdWritten;
            if (holdWritten) {
              captured = await captureHeld(tx, this.accounts, this.repository, call, usage, countTokens);
              return;
            }
            // A quick call (or one whose hold could not be written): hold, release and charge written at once,
            // the call row settled (its id refuses a second), the key's tokens.
            await countTokens(tx);
            await this.repository.in(tx).insertAnswered(call.row, usage);
            await this.accounts.in(tx).chargeAnswered(call.money, usage.cost, call.row.created_at);
            holdWritten = true;
            captured = true;
          },
          undo: () => {
            holdWritten = before;
            captured = false;
          },
          done: (committed) => {
            if (!committed) return this.#lost(call, usage);
            leaveBook();
            if (captured) charged(usage.cost);
          },
        },
        'shared',
      );
    };
  }

  #lost(call: HeldCall, usage: CallUsage): void {
    // Not written (the queue logged why): the hold stays in the book, so the money stays unspendable in
    // this process; a durable hold is settled by the sweep.
    this.log.error(
      `spend: model call ${call.row.id} (${call.money.model}, request ${call.money.requestId}) could not be charged ${usage.cost} micros; its hold stays counted`,
    );
  }
}
