import type { BatchRow, LineUsage } from './batches-repository';

/**
 * The seam where spend control (issue 20: prices, holds) charges a batch. Each line already records its
 * token usage exactly as the synchronous call does (it runs the same core method); what this adds is a
 * hold sized to the batch and its release as lines finish. `USAGE_ONLY_BILLING` (the default until issue
 * 20 wires a real one) holds nothing.
 */
export interface BatchBilling {
  /** Before the batch starts (`validating`): holds what its `lines` may cost; a throw (402) fails the batch with that error. */
  hold(batch: BatchRow, lines: number): Promise<void>;
  /** After a line's result is recorded, with its usage (zero for a failed line). */
  settleLine(batch: BatchRow, usage: LineUsage): Promise<void>;
  /** Once the batch is terminal: releases what is left of the hold. */
  release(batch: BatchRow): Promise<void>;
}

export const USAGE_ONLY_BILLING: BatchBilling = {
  hold: async () => {},
  settleLine: async () => {},
  release: async () => {},
};
