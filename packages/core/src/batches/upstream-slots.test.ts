import { describe, expect, it } from 'vitest';
import { UpstreamSlots, upstreamOf } from './upstream-slots';

const tick = () => new Promise((resolve) => setImmediate(resolve));

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

describe('UpstreamSlots', () => {
  it('runs at most `limit` calls per upstream, the next waiter first in, other upstreams not held up', async () => {
    const slots = new UpstreamSlots(2);
    const signal = new AbortController().signal;
    const gates = [deferred(), deferred(), deferred()];
    const started: string[] = [];
    const calls = gates.map((gate, index) =>
      slots.run('fake', signal, async () => {
        started.push(`fake${index}`);
        await gate.promise;
      }),
    );
    const other = slots.run('other', signal, async () => void started.push('other'));
    await other;
    await tick();
    expect(started).toEqual(['fake0', 'fake1', 'other']);
    expect(slots.inFlight('fake')).toBe(2);
    gates[1]!.resolve();
    await calls[1];
    await tick();
    expect(started).toEqual(['fake0', 'fake1', 'other', 'fake2']);
    expect(slots.inFlight('fake')).toBe(2);
    gates[0]!.resolve();
    gates[2]!.resolve();
    await Promise.all(calls);
    expect(slots.inFlight('fake')).toBe(0);
  });

  it('frees the slot when the call fails, and drops a waiter whose signal aborts', async () => {
    const slots = new UpstreamSlots(1);
    const gate = deferred();
    const first = slots.run('fake', new AbortController().signal, () => gate.promise);
    const aborted = new AbortController();
    const waiting = slots.run('fake', aborted.signal, async () => 'never');
    aborted.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    gate.resolve();
    await first;
    await expect(slots.run('fake', new AbortController().signal, async () => Promise.reject(new Error('upstream 500')))).rejects.toThrow(
      'upstream 500',
    );
    expect(slots.inFlight('fake')).toBe(0);
    await expect(slots.run('fake', new AbortController().signal, async () => 'ran')).resolves.toBe('ran');
  });

  it('names the upstream of a line by the vendor of its model', () => {
    expect(upstreamOf({ model: 'fake/gpt-fake' })).toBe('fake');
    expect(upstreamOf({ model: 'openai/ft:gpt/x' })).toBe('openai');
    expect(upstreamOf({ model: 'alias' })).toBe('alias');
    expect(upstreamOf({})).toBe('');
  });
});
