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
 * The rules of an amount of money a schema cannot say (the routes' schemas check it is a number in
 * range: `AccountCreditParams`, `AccountCreateParams`): in whole micro-units (no finer than 0.000001),
 * and a positive amount at least one micro-unit, since one that rounds to zero at the ledger's precision
 * would answer success and change nothing. Throws 400 naming `param`.
 */
export function checkAmount(amount: number, param: string): number {
  const fail = (why: string): never => {
    throw new InvalidRequestError(`Invalid '${param}': ${why}`, param);
  };
  if (amount > 0 && toMicros(amount) === 0) fail(`${amount} is below the smallest amount the ledger keeps (0.000001).`);
  const micros = amount * MICROS_PER_UNIT;
  if (Math.abs(micros - Math.round(micros)) > 1e-3) fail('amounts are kept in micro-units; use at most 6 decimal places.');
  return amount;
}
