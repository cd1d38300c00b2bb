/** One minute, the window of `maxRequestsPerMinute`. */
export const RATE_WINDOW_MS = 60_000;

/**
 * A sliding-window limiter: a call is admitted when fewer than `limit` calls of the same key were
 * admitted in the last `windowMs` milliseconds. Clock injected for tests.
 */
export class SlidingWindowRateLimiter {
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
