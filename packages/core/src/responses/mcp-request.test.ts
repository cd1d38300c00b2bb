import { describe, expect, it } from 'vitest';
import { echoMcpTool, isToolAllowed, needsApproval, readMcpTool } from './mcp-request';

const base = { type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/mcp' };

describe('the mcp tool of a Responses request', () => {
  it('sends authorization as a bearer header (over a headers Authorization) and echoes neither', () => {
    const tool = { ...base, headers: { authorization: 'Basic old', 'X-Team': 'a' }, authorization: 'sk-1' };
    expect(readMcpTool(tool, 'tools[0]', undefined).headers).toEqual({ 'X-Team': 'a', Authorization: 'Bearer sk-1' });
    expect(echoMcpTool(tool)).toEqual(base);
  });

  it('reads require_approval as OpenAI does: always by default, never, or per-tool rules', () => {
    const read = (require_approval: unknown) => readMcpTool({ ...base, require_approval }, 'tools[0]', undefined);
    expect(needsApproval(read(undefined), 'search', true)).toBe(true);
    expect(needsApproval(read('never'), 'delete', false)).toBe(false);
    const rules = read({ never: { tool_names: ['search'] }, always: { tool_names: ['delete'] } });
    expect([needsApproval(rules, 'search', false), needsApproval(rules, 'delete', false), needsApproval(rules, 'other', false)]).toEqual([
      false,
      true,
      true,
    ]);
    const readOnly = read({ never: { read_only: true } });
    expect([needsApproval(readOnly, 'list', true), needsApproval(readOnly, 'write', false)]).toEqual([false, true]);
  });

  it('filters tools by allowed_tools names or read_only', () => {
    const names = readMcpTool({ ...base, allowed_tools: ['a'] }, 'tools[0]', undefined);
    expect([isToolAllowed(names, 'a', false), isToolAllowed(names, 'b', false)]).toEqual([true, false]);
    const readOnly = readMcpTool({ ...base, allowed_tools: { read_only: true } }, 'tools[0]', undefined);
    expect([isToolAllowed(readOnly, 'a', true), isToolAllowed(readOnly, 'a', false)]).toEqual([true, false]);
  });

  it('names an operator server by label without server_url, and refuses what it cannot read, naming the field', () => {
    expect(readMcpTool({ type: 'mcp', server_label: 'docs' }, 'tools[1]', new Set(['docs'])).serverUrl).toBeUndefined();
    const param = (tool: Record<string, unknown>) => {
      try {
        readMcpTool(tool, 'tools[1]', new Set());
      } catch (error) {
        return (error as { param: string }).param;
      }
    };
    expect(param({ ...base, server_url: 'file:///etc/passwd' })).toBe('tools[1].server_url');
    expect(param({ ...base, headers: { a: 1 } })).toBe('tools[1].headers');
    expect(param({ ...base, require_approval: 'sometimes' })).toBe('tools[1].require_approval');
    expect(param({ ...base, allowed_tools: { tool_names: [1] } })).toBe('tools[1].allowed_tools.tool_names');
  });
});
