import { expect, it } from 'vitest';
import type { ToolSource } from '../types';

export interface ConformanceFixture {
  /** A source whose provider answers `items` (at least one) for `tool`. */
  working(): Promise<ToolSource>;
  /** A source whose provider answers an HTTP error. */
  failing(): Promise<ToolSource>;
  /** A source whose provider never answers. */
  hanging(): Promise<ToolSource>;
  tool: string;
  input: Record<string, unknown>;
}

/**
 * The behaviour every provider-backed `ToolSource` shares (style: one conformance suite per contract):
 * items are `{type, value}` with a string value, cost is a finite number >= 0, provider errors reject
 * with a stable snake_case `code`, and an aborted signal ends the run promptly.
 */
export function describeToolSourceConformance(fixture: ConformanceFixture): void {
  const run = (source: ToolSource, signal = new AbortController().signal) =>
    source.run({ tool: fixture.tool, input: fixture.input, ceiling: 10, signal, accountId: 'acct_test' });

  it('returns items with a type and a string value, and a finite cost >= 0', async () => {
    const output = await run(await fixture.working());
    expect(output.items.length).toBeGreaterThan(0);
    for (const item of output.items) {
      expect(typeof item.type).toBe('string');
      expect(typeof item.value).toBe('string');
    }
    expect(Number.isFinite(output.cost) && output.cost >= 0).toBe(true);
  });

  it('rejects a provider error with a stable code', async () => {
    const error = await run(await fixture.failing()).catch((caught) => caught);
    expect(error).toBeInstanceOf(Error);
    expect(error.code).toMatch(/^[a-z_]+$/);
  });

  it('ends promptly when the signal aborts', async () => {
    const controller = new AbortController();
    const pending = run(await fixture.hanging(), controller.signal);
    setTimeout(() => controller.abort(new Error('job timeout')), 50);
    const started = Date.now();
    await expect(pending).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2000);
  });
}
