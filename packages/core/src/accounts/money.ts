import { InvalidRequestError } from '../errors';

/** Money is kept in integer micro-units (1e-6 of a currency unit) so sums are exact. */
export const MICROS_PER_UNIT = 1_000_000;

/** Largest amount one credit (or initial balance) may add, in currency units. */
export const MAX_CREDIT_UNITS = 1_000_000_000;

export function toMicros(units: number): number {
  return Math.round(units * MICROS_PER_UNIT);
}

export function fromMicros(micros: number): number {
  return micros / MICROS_PER_UNIT;
}

/**
 * Validates an amount of money from a client: a finite number, > 0 (or exactly 0 with `allowZero`), in
 * whole micro-units (no finer than 0.000001), at most `MAX_CREDIT_UNITS`. The error names `param`. A
 * positive amount is at least one micro-unit: one that rounds to zero at the ledger's precision would
 * answer success and change nothing.
 */
export function parseAmount(value: unknown, param: string, options: { allowZero?: boolean } = {}): number {
  const fail = (why: string): never => {
    throw new InvalidRequestError(`Invalid '${param}': ${why}`, param);
  };
  if (typeof value !== 'number' || !Number.isFinite(value)) fail('expected a finite number.');
  const amount = value as number;
  if (amount < 0 || (amount === 0 && !options.allowZero)) fail(options.allowZero ? 'expected a number >= 0.' : 'expected a number > 0.');
  if (amount > MAX_CREDIT_UNITS) fail(`expected at most ${MAX_CREDIT_UNITS}.`);
  if (amount > 0 && toMicros(amount) === 0) fail(`${amount} is below the smallest amount the ledger keeps (0.000001).`);
  const micros = amount * MICROS_PER_UNIT;
  if (Math.abs(micros - Math.round(micros)) > 1e-3) fail('amounts are kept in micro-units; use at most 6 decimal places.');
  return amount;
}
