/** Money is kept in integer micro-units (1e-6 of a currency unit) so sums are exact. */
export const MICROS_PER_UNIT = 1_000_000;

export function toMicros(units: number): number {
  return Math.round(units * MICROS_PER_UNIT);
}

export function fromMicros(micros: number): number {
  return micros / MICROS_PER_UNIT;
}
