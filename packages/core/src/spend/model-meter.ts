import { type Accounts, fromMicros } from '../accounts';
import type { UsageGroupsPage, UsageListParams } from '../models/wire/usage';
import { type ModelPrice, type ModelPriceConfig, priceOf } from '../config';
import { PermissionDeniedError } from '../errors';
import { type CallContext, currentCallContext } from '../internal/call-context';
import { newId, nowSeconds } from '../internal/ids';
import { type Logger, silentLogger } from '../internal/logger';
import { metrics } from '../observability/metrics';
import type { MeteredCall, MeteredCallEnd, MeteredCallStart, ModelCallMeter } from '../models/types';
import { currentRequestId } from '../observability/request-context';
import type { SqlClient } from '../storage';
import { tokensOfBytes } from '../models/token-bounds';
import { costMicros } from './model-costs';
import { type ModelCallsRepository, SqlModelCallsRepository, type UsageGroupBy } from './model-calls-repository';
import { DurableHolds, type ModelCallHolds } from './model-holds';

export interface SpendMeterOptions {
  db: SqlClient;
  accounts: Accounts;
  prices: ModelPriceConfig;
  /** The `<vendor>/<model>` id an allow-list entry stands for (model aliases). */
  resolveModel: (model: string) => string;
  /** Output tokens held when neither the request nor the price file bounds them (`FATHOM_HOLD_OUTPUT_TOKENS`). */
  holdOutputTokens: number;
  /** How long a hold stays before the sweep settles it as abandoned (`FATHOM_HOLD_SECONDS`). */
  holdSeconds: number;
  log?: Logger;
  /** Further clean-up run with each sweep (old rate-limit windows). */
  alsoSweep?: () => Promise<void>;
  now?: () => number;
  repository?: ModelCallsRepository;
  /** How holds are taken and settled (`charging-path.ts` chooses by backend); default: durable before the call. */
  holds?: ModelCallHolds;
}

/**
 * The one place model calls are charged (the chat adapter and embeddings call it for every call made for
 * an account). Before the upstream call: the key's model allow-list, then a hold of the most the call can
 * cost (input bytes as tokens + the output limit, at the model's price) taken from the balance and the
 * key's budget with a `model_calls` row (`holds`: in one transaction before the call on PostgreSQL, decided
 * in process and written behind on SQLite). After it: the actual cost from the upstream's usage is
 * captured and the rest released. A hold its process never settled (killed mid-stream) is settled
 * by `sweep` at its estimated input cost once it expires.
 */
export class SpendMeter implements ModelCallMeter {
  readonly #options: SpendMeterOptions;
  readonly #repository: ModelCallsRepository;
  readonly #holds: ModelCallHolds;
  readonly #now: () => number;
  readonly #log: Logger;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: SpendMeterOptions) {
    this.#options = options;
    this.#repository = options.repository ?? new SqlModelCallsRepository(options.db);
    this.#holds = options.holds ?? new DurableHolds(options.db, options.accounts, this.#repository);
    this.#now = options.now ?? nowSeconds;
    this.#log = options.log ?? silentLogger;
  }

  /** The price charged for a `<vendor>/<model>` id, or undefined (free). */
  price(modelId: string): ModelPrice | undefined {
    return priceOf(modelId, this.#options.prices);
  }

  async start(call: MeteredCallStart): Promise<MeteredCall> {
    const context = currentCallContext();
    if (context?.models && !modelAllowed(call.modelId, context.models, this.#options.resolveModel)) {
      throw new PermissionDeniedError(`This API key may not use the model '${call.modelId}'.`, 'model');
    }
    const id = newId('mc_');
    const base = {
      id,
      account_id: call.accountId,
      key_id: context?.keyId ?? null,
      // The request the running work serves: the request scope of observability, which background work
      // restores from its row (a background response run later, on any node), then the edge's call context.
      request_id: currentRequestId() ?? context?.requestId ?? newId('req_'),
      api: call.api ?? context?.api ?? 'chat.completions',
      model: call.modelId,
      created_at: this.#now(),
    };
    const price = this.price(call.modelId);
    if (!price) return { finish: (end) => this.#recordFree(base, end) };
    // A batch line: held and charged by the batch (`SpendBatchBilling`); recorded here with its batch-priced cost.
    if (context?.batchLine) {
      return {
        finish: (end) =>
          this.#recordFree(
            base,
            end,
            costMicros(price, end.usage?.prompt_tokens ?? 0, end.usage?.completion_tokens ?? 0, cachedOf(end), true),
          ),
      };
    }
    const outputAtMost = call.hasOutput ? (call.maxOutputTokens ?? price.max_output_tokens ?? this.#options.holdOutputTokens) : 0;
    const hold = costMicros(price, call.inputTokensAtMost, outputAtMost);
    const inputCost = costMicros(price, call.inputTokensEstimate, 0);
    const money = { accountId: call.accountId, ref: id, keyId: base.key_id, requestId: base.request_id, model: call.modelId };
    const row = { ...base, hold_micros: hold, input_micros: inputCost, expires_at: base.created_at + this.#options.holdSeconds };
    const settle = hold > 0 ? await this.#holds.take({ money: { ...money, micros: hold }, row, stream: call.stream ?? false }) : undefined;
    return {
      finish: async (end: MeteredCallEnd) => {
        const prompt = end.usage?.prompt_tokens ?? (end.answered ? call.inputTokensEstimate : 0);
        const completion = end.usage?.completion_tokens ?? (end.answered ? tokensOfBytes(end.outputBytes ?? 0) : 0);
        const cost = costMicros(price, prompt, completion, cachedOf(end));
        try {
          if (!settle) return await this.#recordFree(base, end, cost);
          // One transaction: the key's tpm window, the call row, the release and the charge (one WAL commit).
          await settle(
            { prompt, completion, cost: Math.min(cost, hold) },
            (tx) => countTokens(context, prompt + completion, this.#log, tx),
            (micros) => countCost(call.modelId, micros),
          );
        } catch (error) {
          this.#log.warn(`spend: could not settle model call ${id} (the sweep will): ${(error as Error).message}`);
        }
      },
    };
  }

  /**
   * Settles holds whose process never did (killed mid-call): each charges its estimated input cost (the
   * prompt was sent; what streamed is not known) and releases the rest, exactly once. Returns how many.
   */
  async sweep(limit = 100): Promise<number> {
    await this.#options.alsoSweep?.();
    const expired = await this.#repository.expired(this.#now(), limit);
    let settled = 0;
    for (const row of expired) {
      const done = await this.#options.db.transaction(async (tx) => {
        if (!(await this.#repository.in(tx).settle(row.id, { prompt: 0, completion: 0, cost: row.input_micros }))) return false;
        await this.#options.accounts.in(tx).capture({
          accountId: row.account_id,
          ref: row.id,
          micros: row.input_micros,
          keyId: row.key_id,
          requestId: row.request_id,
          model: row.model,
        });
        return true;
      });
      if (done) {
        settled++;
        countCost(row.model, row.input_micros);
      }
    }
    return settled;
  }

  /** `GET /v1/usage?group_by=…`: the account's settled calls in `[start_time, end_time)` grouped, with their cost. */
  async usage(accountId: string, params: UsageListParams): Promise<UsageGroupsPage> {
    const endTime = params.end_time ?? this.#now() + 1;
    const startTime = params.start_time ?? endTime - 30 * 86_400;
    const groupBy = (params.group_by ?? 'day').split(',') as UsageGroupBy[];
    const unique = [...new Set(groupBy)];
    const rows = await this.#repository.groups(accountId, { start: startTime, end: endTime, groupBy: unique, model: params.model });
    return {
      object: 'list',
      start_time: startTime,
      end_time: endTime,
      group_by: unique,
      data: rows.map(({ cost_micros, ...row }) => ({
        ...row,
        total_tokens: row.prompt_tokens + row.completion_tokens,
        cost: fromMicros(cost_micros),
      })),
    };
  }

  /** Sweeps at once and then every `intervalMs` (holds of processes that died), until `close`. */
  startSweeping(intervalMs = 60_000): void {
    if (this.#timer) return;
    const sweep = () =>
      void this.sweep().catch((error: Error) => this.#log.warn(`spend: could not sweep abandoned holds: ${error.message}`));
    sweep();
    this.#timer = setInterval(sweep, intervalMs);
    this.#timer.unref();
  }

  close(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  async #recordFree(base: Parameters<ModelCallsRepository['insertSettled']>[0], end: MeteredCallEnd, cost = 0): Promise<void> {
    if (!end.answered) return;
    await countTokens(currentCallContext(), (end.usage?.prompt_tokens ?? 0) + (end.usage?.completion_tokens ?? 0), this.#log);
    try {
      await this.#repository.insertSettled(base, {
        prompt: end.usage?.prompt_tokens ?? 0,
        completion: end.usage?.completion_tokens ?? tokensOfBytes(end.outputBytes ?? 0),
        cost,
      });
    } catch (error) {
      this.#log.warn(`spend: could not record model call ${base.id}: ${(error as Error).message}`);
    }
  }
}

/** `fathom_model_cost_total{model}`: what a model call was charged, in currency units (per process; labelled by model only). */
export function countCost(model: string, micros: number): void {
  if (micros > 0) metrics.modelCost.inc({ model }, fromMicros(micros));
}

function cachedOf(end: MeteredCallEnd): number {
  return end.usage?.prompt_tokens_details?.cached_tokens ?? 0;
}

async function countTokens(context: CallContext | undefined, tokens: number, log: Logger, tx?: SqlClient): Promise<void> {
  await context
    ?.countTokens?.(tokens, tx)
    .catch((error: Error) => log.warn(`spend: could not count tokens for the key's tpm_limit: ${error.message}`));
}

/** Whether a key's allow-list admits a model: an exact id, a `vendor/*` glob, or an alias of the id. */
export function modelAllowed(modelId: string, allowed: readonly string[], resolve: (model: string) => string): boolean {
  for (const entry of allowed) {
    if (entry.endsWith('/*') ? modelId.startsWith(entry.slice(0, -1)) : entry === modelId || resolve(entry) === modelId) return true;
  }
  return false;
}
