/**
 * Loaded with `--import` into a `fathom serve` child process by tests that assert the server stays
 * responsive: it measures the process's event-loop delay, and on each SIGUSR2 prints the longest
 * stall since the previous one (`event-loop-max-ms <ms>`) and starts over. Only the server is
 * measured: the test's own work (building and reading large bodies, an in-process PGlite) runs in
 * another process.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.on('SIGUSR2', () => {
  process.stdout.write(`event-loop-max-ms ${(histogram.max / 1e6).toFixed(1)}\n`);
  histogram.reset();
});
