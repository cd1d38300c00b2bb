/** One minute, the window of `maxRequestsPerMinute`. */
export const RATE_WINDOW_MS = 60_000;

/**
 * The seam of a Webhook card's `maxRequestsPerMinute`: a call is admitted (and recorded) when fewer
 * than `limit` calls of the same key were admitted in the last window. `WebhookToolkit` uses the
 * in-memory `SlidingWindowRateLimiter` unless given another; Fathom gives it `SqlRateLimiter`, whose
 * window is shared by every process on the database.
 */
export interface RateLimiter {
  tryAcquire(key: string, limit: number): Promise<boolean> | boolean;
}

/**
 * A sliding-window limiter in memory (one process): a call is admitted when fewer than `limit` calls
 * of the same key were admitted in the last `windowMs` milliseconds. Clock injected for tests.
 */
export class SlidingWindowRateLimiter implements RateLimiter {
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly windowMs = RATE_WINDOW_MS,
  ) {}

  /** Admits (and records) a call, or answers false when the window is full. */
  tryAcquire(key: string, limit: number): boolean {
    const now = this.now();
    const recent = (this.calls.get(key) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= limit) {
      this.calls.set(key, recent);
      return false;
    }
    recent.push(now);
    this.calls.set(key, recent);
    return true;
  }
}
