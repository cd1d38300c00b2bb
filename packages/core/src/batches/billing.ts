import type { BatchRow, LineUsage } from './batches-repository';
import type { BatchBounds } from './read-input';

/**
 * The seam where spend control (issue 20: prices, holds) charges a batch. Each line already records its
 * token usage exactly as the synchronous call does (it runs the same core method); what this adds is a
 * hold sized to the batch and its release as lines finish. `USAGE_ONLY_BILLING` (the default until issue
 * 20 wires a real one) holds nothing.
 */
export interface BatchBilling {
  /**
   * Before the batch starts (`validating`): holds what its lines may cost (`bounds`, the batch's one `model`);
   * a FathomError (429 `insufficient_quota`) fails the batch with that error. Holds once per batch (a run
   * that validates again after a restart finds the hold taken).
   */
  hold(batch: BatchRow, model: string, bounds: BatchBounds): Promise<void>;
  /**
   * Before a line is sent (and marked sent): waits, until `signal` aborts, for room in the per-minute window
   * of the key that created the batch (`rpm_limit`, `tpm_limit`) and counts the line there with its estimated
   * input tokens. Answers the tokens counted ahead, for `runLine`.
   */
  admitLine(batch: BatchRow, line: { inputBytes: number }, signal: AbortSignal): Promise<number>;
  /**
   * Runs one line's calls: under the key that created the batch, priced as a batch line, charged by
   * `settleLine` (not held one by one); its tokens beyond `countedAhead` are added to the key's window.
   */
  runLine<T>(batch: BatchRow, requestId: string, fn: () => Promise<T>, countedAhead?: number): Promise<T>;
  /** After a line's result is recorded, with its usage (zero for a failed line); charges a line once (by `customId`). */
  settleLine(batch: BatchRow, line: { customId: string; requestId: string; usage: LineUsage }): Promise<void>;
  /** Once the batch is terminal: releases what is left of the hold. */
  release(batch: BatchRow): Promise<void>;
}

export const USAGE_ONLY_BILLING: BatchBilling = {
  hold: async () => {},
  admitLine: async () => 0,
  runLine: (_batch, _requestId, fn) => fn(),
  settleLine: async () => {},
  release: async () => {},
};
