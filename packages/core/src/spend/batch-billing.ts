import type { Accounts } from '../accounts';
import type { BatchBilling, BatchBounds, BatchRow, LineUsage } from '../batches';
import { withCallContext } from '../internal/call-context';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { costMicros } from './model-costs';
import { countCost } from './model-meter';
import type { SpendMeter } from './model-meter';
import { tokensOfBytes } from '../models/token-bounds';
import type { KeyRateLimits } from './key-rate-limits';
import type { KeyedWork } from './work-context';

export interface SpendBatchBillingOptions {
  db: SqlClient;
  accounts: Accounts;
  meter: Pick<SpendMeter, 'price'>;
  /** The `<vendor>/<model>` id a batch's `model` (maybe an alias) is priced as. */
  resolveModel: (model: string) => string;
  /** Output tokens held for a line that bounds none, when the price file gives no `max_output_tokens`. */
  holdOutputTokens: number;
  keyedWork: KeyedWork;
  /** The keys' per-minute windows, which batch lines wait for and count in. */
  rateLimits: KeyRateLimits;
  log: Logger;
}

/** Thrown inside a line's transaction to roll it back when the line was charged before. */
const CHARGED = new Error('batch line charged already');

interface HoldRow {
  account_id: string;
  key_id: string | null;
  model: string;
  left_micros: number;
  released: number;
}

/**
 * A batch charged as OpenAI bills one: every line at the model's batch price (`input_cost_per_token_batches`,
 * `output_cost_per_token_batches`, else half the normal price), out of ONE hold taken when the batch starts
 * and sized to what all its lines can cost (their input bytes + their output bounds). Each finished line
 * moves its cost from the hold to a charge under its own ref (`<batch id>/<custom_id>`, so a line is charged
 * once); what is left is released once when the batch ends, whatever its end. The hold, the lines and the
 * release name the key that created the batch, whose budget they draw on.
 */
export class SpendBatchBilling implements BatchBilling {
  readonly #options: SpendBatchBillingOptions;

  constructor(options: SpendBatchBillingOptions) {
    this.#options = options;
  }

  async hold(batch: BatchRow, model: string, bounds: BatchBounds): Promise<void> {
    const { db, accounts, meter, resolveModel, holdOutputTokens } = this.#options;
    const modelId = resolveModel(model);
    const price = meter.price(modelId);
    if (!price) return;
    const outputTokens = bounds.outputTokens + bounds.unboundedLines * (price.max_output_tokens ?? holdOutputTokens);
    const micros = costMicros(price, bounds.inputTokensAtMost, outputTokens, 0, true);
    if (micros <= 0) return;
    await db.transaction(async (tx) => {
      // Validating again after a restart: the hold was taken by the run that stopped.
      if (await tx.get('SELECT 1 AS found FROM batch_holds WHERE batch_id = ?', [batch.id])) return;
      await accounts
        .in(tx)
        .hold({ accountId: batch.account_id, ref: batch.id, micros, keyId: batch.key_id ?? null, requestId: batch.id, model: modelId });
      await tx.run('INSERT INTO batch_holds (batch_id, account_id, key_id, model, held_micros, left_micros) VALUES (?, ?, ?, ?, ?, ?)', [
        batch.id,
        batch.account_id,
        batch.key_id ?? null,
        modelId,
        micros,
        micros,
      ]);
    });
  }

  /**
   * A line of a batch started by a key with `rpm_limit` or `tpm_limit` waits for room in that key's window
   * and counts in it, like a request of the key (see docs/decisions/2026-11-26-batch-lines-in-key-windows.md):
   * one request, and its input tokens estimated from its body's bytes ahead of the call, so lines waiting
   * together do not all start when a minute turns; the rest of its tokens when it settles.
   */
  async admitLine(batch: BatchRow, line: { inputBytes: number }, signal: AbortSignal): Promise<number> {
    if (!batch.key_id) return 0;
    const key = await this.#options.accounts.keyGrant(batch.account_id, batch.key_id);
    if (!key || (key.rpm_limit === null && key.tpm_limit === null)) return 0;
    const ahead = key.tpm_limit === null ? 0 : tokensOfBytes(line.inputBytes);
    await this.#options.rateLimits.admitWaiting(key, ahead, signal);
    return ahead;
  }

  async runLine<T>(batch: BatchRow, requestId: string, fn: () => Promise<T>, countedAhead = 0): Promise<T> {
    const context = await this.#options.keyedWork.contextOf({
      accountId: batch.account_id,
      keyId: batch.key_id ?? null,
      requestId,
      api: 'batches',
    });
    // The line's tokens count in the key's window, less what `admitLine` counted ahead (its input estimate).
    let ahead = countedAhead;
    const count = context.countTokens;
    const countTokens = count
      ? (tokens: number, tx?: SqlClient) => {
          const rest = tokens - ahead;
          ahead = Math.max(0, ahead - tokens);
          return count(rest, tx);
        }
      : undefined;
    return withCallContext({ ...context, countTokens, batchLine: true }, fn);
  }

  async settleLine(batch: BatchRow, line: { customId: string; requestId: string; usage: LineUsage }): Promise<void> {
    const { db, accounts, meter } = this.#options;
    const held = await db.get<HoldRow>('SELECT account_id, key_id, model, left_micros, released FROM batch_holds WHERE batch_id = ?', [
      batch.id,
    ]);
    const price = held && meter.price(held.model);
    if (!held || !price) return;
    const cost = costMicros(price, line.usage.input, line.usage.output, line.usage.cached, true);
    if (cost <= 0) return;
    const charged = await db
      .transaction(async (tx): Promise<number> => {
        // Compare-and-set on what is left, so lines settling at once (on any process) never take more than the hold.
        for (;;) {
          const now = await tx.get<HoldRow>('SELECT left_micros, released FROM batch_holds WHERE batch_id = ?', [batch.id]);
          if (!now || now.released || now.left_micros <= 0) return 0;
          const charge = Math.min(cost, now.left_micros);
          const taken = await tx.run(
            'UPDATE batch_holds SET left_micros = left_micros - ? WHERE batch_id = ? AND released = 0 AND left_micros = ?',
            [charge, batch.id, now.left_micros],
          );
          if (taken.changes === 0) continue;
          const money = { accountId: held.account_id, keyId: held.key_id, requestId: line.requestId, model: held.model };
          // Charged already (a repeated settle): undo the decrement with the whole transaction.
          if (!(await accounts.in(tx).chargeFromHold({ ...money, ref: `${batch.id}/${line.customId}`, micros: charge }))) throw CHARGED;
          return charge;
        }
      })
      .catch((error: unknown) => {
        // The line's answer is recorded; a charge that failed is not retried (what is left is released at the end).
        if (error !== CHARGED)
          this.#options.log.warn(`spend: could not charge line ${line.customId} of ${batch.id}: ${(error as Error).message}`);
        return 0;
      });
    countCost(held.model, charged);
  }

  async release(batch: BatchRow): Promise<void> {
    const { db, accounts } = this.#options;
    await db.transaction(async (tx) => {
      const held = await tx.get<HoldRow>('SELECT account_id, key_id, model, left_micros, released FROM batch_holds WHERE batch_id = ?', [
        batch.id,
      ]);
      if (!held || held.released) return;
      if ((await tx.run('UPDATE batch_holds SET released = 1 WHERE batch_id = ? AND released = 0', [batch.id])).changes === 0) return;
      await accounts.in(tx).releaseHeld({
        accountId: held.account_id,
        ref: batch.id,
        micros: held.left_micros,
        keyId: held.key_id,
        requestId: batch.id,
        model: held.model,
      });
    });
  }
}
