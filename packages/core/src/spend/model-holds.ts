import type { Accounts, ModelCallMoney } from '../accounts';
import type { SqlClient } from '../storage';
import type { ModelCallRow, ModelCallsRepository } from './model-calls-repository';

/** A priced model call to hold: its money (`micros` = the hold), its `model_calls` row, and how it runs. */
export interface HeldCall {
  money: ModelCallMoney;
  row: ModelCallRow;
  /** A stream: its hold is made durable at once (a client may read it, or the process die, any time). */
  stream: boolean;
}

/** What a call used, to settle its hold: tokens and cost (micro-units, already capped at the hold). */
export interface CallUsage {
  prompt: number;
  completion: number;
  cost: number;
}

/**
 * Settles a held call: captures `usage.cost` and releases the rest, exactly once; `countTokens` adds the
 * tokens to the key's window in the same transaction. `charged` hears the cost once it is captured.
 */
export type SettleHold = (
  usage: CallUsage,
  countTokens: (tx: SqlClient) => Promise<void>,
  charged: (micros: number) => void,
) => Promise<void>;

/**
 * How a model call's hold is taken and settled. `take` refuses (429 `insufficient_quota`) before any
 * upstream call when the balance or the key's budget cannot cover the hold. Two ways, chosen by backend
 * in `charging-path.ts`: durable before the call (`DurableHolds`: processes sharing PostgreSQL) or
 * decided in process and written behind (`BookedHolds`: SQLite's one server process).
 */
export interface ModelCallHolds {
  take(call: HeldCall): Promise<SettleHold>;
}

/**
 * The hold written before the upstream call (balance, key budget, `reserve` ledger row, held call row: one
 * transaction), the capture after it (the call row settled, release and charge, the key's tokens: one
 * transaction), awaited by the caller.
 */
export class DurableHolds implements ModelCallHolds {
  constructor(
    private readonly db: SqlClient,
    private readonly accounts: Accounts,
    private readonly repository: ModelCallsRepository,
  ) {}

  async take(call: HeldCall): Promise<SettleHold> {
    await this.db.transaction(async (tx) => {
      await this.accounts.in(tx).hold(call.money, call.row.created_at);
      await this.repository.in(tx).insertHeld(call.row);
    });
    return async (usage, countTokens, charged) => {
      const captured = await this.db.transaction((tx) => captureHeld(tx, this.accounts, this.repository, call, usage, countTokens));
      if (captured) charged(usage.cost);
    };
  }
}

/**
 * In `tx`: the key's tokens, the call row moved from held to settled, the release and the charge. False
 * (nothing charged) when the row was settled already (by a sweep or another finish).
 */
export async function captureHeld(
  tx: SqlClient,
  accounts: Accounts,
  repository: ModelCallsRepository,
  call: HeldCall,
  usage: CallUsage,
  countTokens: (tx: SqlClient) => Promise<void>,
): Promise<boolean> {
  await countTokens(tx);
  if (!(await repository.in(tx).settle(call.row.id, usage))) return false;
  // The row just moved from held to settled in this transaction: the hold exists and is settled once.
  return accounts.in(tx).capture({ ...call.money, micros: usage.cost }, call.money.micros);
}
