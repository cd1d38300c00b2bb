import { describe, expect, it } from 'vitest';
import { ToolCallAssembler } from './tool-call-assembler';
import type { ChatStreamPart } from './types';

const delta = (index: number, fields: { id?: string; name?: string; argumentsDelta?: string }): ChatStreamPart => ({
  type: 'tool-call-delta',
  index,
  ...fields,
});

describe('ToolCallAssembler', () => {
  it('joins a function name and its arguments split over several deltas', () => {
    const calls = new ToolCallAssembler();
    for (const part of [
      delta(0, { id: 'call_1', name: 'get_' }),
      delta(0, { name: 'weather' }),
      delta(0, { argumentsDelta: '{"city":' }),
      delta(0, { argumentsDelta: '"Paris"}' }),
    ]) {
      calls.add(part);
    }
    expect(calls.calls()).toEqual([{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
  });

  it('keeps interleaved calls apart by index and answers them in index order', () => {
    const calls = new ToolCallAssembler();
    calls.add(delta(1, { id: 'call_b', name: 'second', argumentsDelta: '{"b"' }));
    calls.add(delta(0, { id: 'call_a', name: 'first', argumentsDelta: '{"a"' }));
    calls.add(delta(1, { argumentsDelta: ':2}' }));
    calls.add(delta(0, { argumentsDelta: ':1}' }));
    calls.add({ type: 'text-delta', text: 'ignored' });
    expect(calls.calls().map((call) => [call.id, call.function.name, call.function.arguments])).toEqual([
      ['call_a', 'first', '{"a":1}'],
      ['call_b', 'second', '{"b":2}'],
    ]);
    expect(calls.size).toBe(2);
  });

  it('gives a call without an id one stable, unique id', () => {
    const first = new ToolCallAssembler();
    first.add(delta(0, { name: 'search' }));
    const id = first.calls()[0]!.id;
    first.add(delta(0, { argumentsDelta: '{}' }));
    expect(first.calls()[0]!.id).toBe(id);
    expect(id).toMatch(/^call_[A-Za-z0-9]{24}$/);
    const second = new ToolCallAssembler();
    second.add(delta(0, { name: 'search' }));
    expect(second.calls()[0]!.id).not.toBe(id);
  });

  it('takes an id that arrives after the first delta', () => {
    const calls = new ToolCallAssembler();
    calls.add(delta(0, { name: 'late' }));
    calls.add(delta(0, { id: 'call_late', argumentsDelta: '{}' }));
    expect(calls.calls()[0]!.id).toBe('call_late');
  });
});
