import type { Schema } from '../storage';

/**
 * Spend control's own table beside the batches (its own component, applied after theirs): `batch_holds`,
 * the one hold of a batch — what was held, what is left of it as lines are charged, and whether what was
 * left has been released (once, when the batch ends).
 */
const batchHolds = (bigint: string) => `
CREATE TABLE batch_holds (
  batch_id TEXT PRIMARY KEY REFERENCES batches(id) ON DELETE CASCADE,
  account_id TEXT NOT NULL,
  key_id TEXT,
  model TEXT NOT NULL,
  held_micros ${bigint} NOT NULL,
  left_micros ${bigint} NOT NULL,
  released INTEGER NOT NULL DEFAULT 0
);`;

export const spendSchema: Schema = {
  component: 'spend',
  sqlite: [batchHolds('INTEGER')],
  postgres: [batchHolds('BIGINT')],
};
