import { describe, expect, it } from 'vitest';
import { costMicros } from './model-costs';

// 1 micro-unit per input token, 2 per output token; cached reads at 0.25 micro-units.
const price = { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002 };
const cachedPrice = { ...price, cache_read_input_token_cost: 0.00000025 };

describe('costMicros', () => {
  it('charges cached prompt tokens at cache_read_input_token_cost instead of the input price', () => {
    // 1000 prompt tokens of which 800 cached, 100 completion: 200 × 1 + 800 × 0.25 + 100 × 2 = 600.
    expect(costMicros(cachedPrice, 1000, 100, 800)).toBe(600);
    // Without cached tokens the price is the input price.
    expect(costMicros(cachedPrice, 1000, 100)).toBe(1200);
  });

  it('charges cached tokens at the input price when the price file has no cache read price', () => {
    expect(costMicros(price, 1000, 100, 800)).toBe(1200);
  });

  it('never counts more cached tokens than prompt tokens, and rounds up once per call', () => {
    expect(costMicros(cachedPrice, 10, 0, 50)).toBe(3); // 10 × 0.25 = 2.5 -> 3
    expect(costMicros(cachedPrice, 1, 0, 1)).toBe(1);
  });

  it('prices a batch line at the batch prices, or at half the normal prices when the file has none', () => {
    const batchPrice = { ...price, input_cost_per_token_batches: 0.0000004, output_cost_per_token_batches: 0.0000008 };
    expect(costMicros(batchPrice, 1000, 100, 0, true)).toBe(480); // 1000 × 0.4 + 100 × 0.8
    expect(costMicros(price, 1000, 100, 0, true)).toBe(600); // half of 1200
    // A cache read price applies to a batch line's cached tokens too.
    expect(costMicros({ ...cachedPrice }, 1000, 100, 800, true)).toBe(400); // 200 × 0.5 + 800 × 0.25 + 100 × 1
  });
});
