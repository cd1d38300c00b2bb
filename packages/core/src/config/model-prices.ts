import { readFileSync } from 'node:fs';

/**
 * The price of one model, as `FATHOM_MODEL_PRICES` gives it (LiteLLM's `model_prices_and_context_window.json`
 * fields): currency units per token, and the model's limits. Kept also in pico-units per token (1e-12 of a
 * currency unit, integers) so costs are computed exactly.
 */
export interface ModelPrice {
  input_cost_per_token: number;
  output_cost_per_token: number;
  cache_read_input_token_cost?: number;
  input_cost_per_token_batches?: number;
  output_cost_per_token_batches?: number;
  max_output_tokens?: number;
  max_input_tokens?: number;
}

/** `FATHOM_MODEL_PRICES`, parsed once: model id (`<vendor>/<model>` or a bare model name) -> price. */
export interface ModelPriceConfig {
  modelPrices: Record<string, ModelPrice>;
}

const NUMBER_FIELDS = [
  'input_cost_per_token',
  'output_cost_per_token',
  'cache_read_input_token_cost',
  'input_cost_per_token_batches',
  'output_cost_per_token_batches',
  'max_output_tokens',
  'max_input_tokens',
] as const;

/**
 * Reads `FATHOM_MODEL_PRICES`: inline JSON (starts with `{`) or the path of a JSON file, in LiteLLM's
 * format so its price file works as it is. Entries that carry no token price (LiteLLM's `sample_spec`,
 * image and audio models) are skipped; other fields are ignored. A bad value stops start-up with a message
 * naming the variable and the entry.
 */
export function parseModelPrices(env: Record<string, string | undefined>): ModelPriceConfig {
  const raw = env.FATHOM_MODEL_PRICES?.trim();
  if (!raw) return { modelPrices: {} };
  let text = raw;
  if (!raw.startsWith('{')) {
    try {
      text = readFileSync(raw, 'utf8');
    } catch (error) {
      throw new Error(`FATHOM_MODEL_PRICES: cannot read the price file '${raw}': ${(error as Error).message}`);
    }
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`FATHOM_MODEL_PRICES is not valid JSON: ${(error as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('FATHOM_MODEL_PRICES must be a JSON object: model id -> {input_cost_per_token, output_cost_per_token, …}.');
  }
  const modelPrices: Record<string, ModelPrice> = {};
  for (const [model, entry] of Object.entries(parsed as Record<string, unknown>)) {
    if (!entry || typeof entry !== 'object' || Array.isArray(entry)) continue;
    const fields = entry as Record<string, unknown>;
    if (fields.input_cost_per_token === undefined && fields.output_cost_per_token === undefined) continue;
    const price: Record<string, number> = {};
    for (const name of NUMBER_FIELDS) {
      const value = fields[name];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        throw new Error(`FATHOM_MODEL_PRICES["${model}"].${name} must be a number >= 0, got ${JSON.stringify(value)}.`);
      }
      price[name] = value;
    }
    modelPrices[model] = { input_cost_per_token: 0, output_cost_per_token: 0, ...price };
  }
  return { modelPrices };
}

/** The price of a `<vendor>/<model>` id: its own entry, else the entry of its bare model name; undefined = free. */
export function priceOf(modelId: string, config: ModelPriceConfig): ModelPrice | undefined {
  const prices = config.modelPrices;
  if (Object.hasOwn(prices, modelId)) return prices[modelId];
  const slash = modelId.indexOf('/');
  const bare = slash >= 0 ? modelId.slice(slash + 1) : modelId;
  return Object.hasOwn(prices, bare) ? prices[bare] : undefined;
}
