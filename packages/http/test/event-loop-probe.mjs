/**
 * Loaded with `--import` into a `fathom serve` child process by tests that assert the server stays
 * responsive. A timer ticks every millisecond; the gap between two ticks is a stall of the event loop.
 * Since the previous report it keeps the longest stall's wall time, and the most CPU time the process
 * spent in one stall: the wall time is what a client waits, and on a shared machine it also holds
 * the time the OS gave other processes; the CPU time is what the server itself held the loop for.
 * On each SIGUSR2 it prints `event-loop-stall-ms <wall> cpu-ms <cpu>` and starts over. Only the
 * server runs in this process: the test's own work (large bodies, an in-process PGlite) runs elsewhere.
 */
const cpuMs = () => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
};

let lastTick = performance.now();
let lastCpu = cpuMs();
let longest = { wall: 0, cpu: 0 };
setInterval(() => {
  const now = performance.now();
  const cpu = cpuMs();
  longest = { wall: Math.max(longest.wall, now - lastTick), cpu: Math.max(longest.cpu, cpu - lastCpu) };
  lastTick = now;
  lastCpu = cpu;
}, 1);

process.on('SIGUSR2', () => {
  process.stdout.write(`event-loop-stall-ms ${longest.wall.toFixed(1)} cpu-ms ${longest.cpu.toFixed(1)}\n`);
  longest = { wall: 0, cpu: 0 };
  lastTick = performance.now();
  lastCpu = cpuMs();
});
