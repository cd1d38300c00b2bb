import type { ModelPrice } from '../config';

/** Pico-units (1e-12 of a currency unit) per micro-unit: prices are kept per token in pico-units, integers. */
const PICOS_PER_MICRO = 1_000_000;

/** A price per token as integer pico-units, so token counts multiply exactly (0.15 micro-units = 150,000). */
export function picosPerToken(costPerToken: number | undefined): number {
  return Math.round((costPerToken ?? 0) * 1e12);
}

/**
 * The cost of a call in whole micro-units, rounded up: `prompt × input price + completion × output price`,
 * computed exactly in pico-units, then rounded up once per call (a 1-token call at 0.15 micro-units per
 * token costs 1 micro-unit, never 0). See docs/decisions/2026-11-25-spend-at-the-model-call.md.
 */
export function costMicros(price: ModelPrice, promptTokens: number, completionTokens: number): number {
  const picos =
    tokens(promptTokens) * picosPerToken(price.input_cost_per_token) +
    tokens(completionTokens) * picosPerToken(price.output_cost_per_token);
  return Math.ceil(picos / PICOS_PER_MICRO);
}

function tokens(value: number): number {
  return Math.max(0, Math.ceil(Number.isFinite(value) ? value : 0));
}
