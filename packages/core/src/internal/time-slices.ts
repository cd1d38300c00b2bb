/** A turn of the event loop: timers, I/O and other requests run before the caller continues. */
export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * For long synchronous work done in steps: `await pause()` between steps gives the event loop a turn
 * once the current slice has run `sliceMs` (default 8 ms), so a request of any size holds the server
 * for about one step plus the slice at most.
 */
export function timeSlices(sliceMs = 8): () => Promise<void> {
  let started = performance.now();
  return async () => {
    if (performance.now() - started < sliceMs) return;
    await yieldToEventLoop();
    started = performance.now();
  };
}
