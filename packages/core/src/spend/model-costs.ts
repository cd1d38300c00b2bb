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
 * token costs 1 micro-unit, never 0). Cached prompt tokens cost `cache_read_input_token_cost` instead of
 * the input price when the price file has it. `batch`: a line of a batch, at `input_cost_per_token_batches`
 * / `output_cost_per_token_batches`, or half the normal price when the file has no batch price. See
 * docs/decisions/2026-11-25-spend-at-the-model-call.md and 2026-11-25-batch-prices.md.
 */
export function costMicros(price: ModelPrice, promptTokens: number, completionTokens: number, cachedTokens = 0, batch = false): number {
  const prompt = tokens(promptTokens);
  const cached = Math.min(prompt, tokens(cachedTokens));
  const input = picosPerToken(batch ? (price.input_cost_per_token_batches ?? price.input_cost_per_token / 2) : price.input_cost_per_token);
  const output = picosPerToken(
    batch ? (price.output_cost_per_token_batches ?? price.output_cost_per_token / 2) : price.output_cost_per_token,
  );
  const cachedPrice = price.cache_read_input_token_cost === undefined ? input : picosPerToken(price.cache_read_input_token_cost);
  const picos = (prompt - cached) * input + cached * cachedPrice + tokens(completionTokens) * output;
  return Math.ceil(picos / PICOS_PER_MICRO);
}

function tokens(value: number): number {
  return Math.max(0, Math.ceil(Number.isFinite(value) ? value : 0));
}
