import { describe, expect, it } from 'vitest';
import { FairSlots } from './fair-slots';

/** Queues `count` tasks of `key`; each records its start and waits until the test ends it. */
function queue(slots: FairSlots, started: string[], key: string, count: number, capped = false) {
  const releases: Array<Promise<() => void>> = [];
  for (let i = 0; i < count; i++) {
    releases.push(
      slots.acquire(key, { capped }).then((release) => {
        started.push(`${key}${i}`);
        return release;
      }),
    );
  }
  return releases;
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('FairSlots', () => {
  it("gives the next free slot to a key that waited behind another key's long queue (round robin)", async () => {
    const slots = new FairSlots(1);
    const started: string[] = [];
    const a = queue(slots, started, 'A', 40);
    await tick();
    const b = queue(slots, started, 'B', 2);
    await tick();
    for (let i = 0; i < 4; i++) {
      const running = started.at(-1)!;
      (await (running.startsWith('A') ? a[Number(running.slice(1))] : b[Number(running.slice(1))])!)();
      await tick();
    }
    expect(started).toEqual(['A0', 'B0', 'A1', 'B1', 'A2']);
  });

  it("keeps a slot free of one key's capped (interactive) work while others may need it", async () => {
    const slots = new FairSlots(2);
    const started: string[] = [];
    queue(slots, started, 'A', 10, true);
    await tick();
    expect(started).toEqual(['A0']);
    expect(slots.busy).toBe(1);
    queue(slots, started, 'B', 1);
    await tick();
    expect(started).toEqual(['A0', 'B0']);
  });

  it("uses every slot for one key's uncapped work (ingestion) when nothing else waits", async () => {
    const slots = new FairSlots(2);
    const started: string[] = [];
    queue(slots, started, 'A', 3);
    await tick();
    expect(started).toEqual(['A0', 'A1']);
  });

  it('stops waiting when the signal aborts', async () => {
    const slots = new FairSlots(1);
    await slots.acquire('A');
    const controller = new AbortController();
    const waiting = slots.acquire('B', { signal: controller.signal });
    controller.abort(new Error('gone'));
    await expect(waiting).rejects.toThrow('gone');
  });
});
