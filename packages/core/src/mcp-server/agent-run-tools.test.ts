import { describe, expect, it } from 'vitest';
import { agentToolNames } from './agent-run-tools';

const agent = (id: string, name: string) => ({ id, name, version: 1 });

describe('agent tool names', () => {
  it('are agent_ plus the name sanitised as route names are, the older agent keeping a shared name', () => {
    const names = agentToolNames([
      agent('agent_1', 'Réservations Hôtel'),
      agent('agent_2', 'Support-Desk'),
      agent('agent_3', 'support desk'),
      agent('agent_4', 'Support Desk!'),
    ]);
    expect([...names].map(([name, { id }]) => [name, id])).toEqual([
      ['agent_reservations_hotel', 'agent_1'],
      ['agent_support_desk', 'agent_2'],
      ['agent_support_desk_2', 'agent_3'],
      ['agent_support_desk_3', 'agent_4'],
    ]);
  });

  it('stay within 64 characters, suffix included', () => {
    const long = 'x'.repeat(80);
    const names = [...agentToolNames([agent('agent_1', long), agent('agent_2', long)]).keys()];
    expect(names[0]).toBe(`agent_${'x'.repeat(58)}`);
    expect(names[1]).toBe(`agent_${'x'.repeat(56)}_2`);
    expect(names.every((name) => name.length <= 64)).toBe(true);
  });
});
