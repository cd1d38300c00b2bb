import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';
import { parseMcpServers } from './mcp-servers';

describe('FATHOM_MCP_SERVERS', () => {
  it('reads remote and stdio servers by label, none by default', () => {
    expect(loadConfig({}).mcpServers).toEqual({});
    const servers = parseMcpServers({
      FATHOM_MCP_SERVERS: JSON.stringify({
        docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer k' } },
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'], env: { LOG: '0' } },
      }),
    });
    expect(servers).toEqual({
      docs: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer k' } },
      files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv'], env: { LOG: '0' } },
    });
  });

  it('stops start-up on a bad entry, naming the label and never a header value', () => {
    const bad = (value: unknown) => () => parseMcpServers({ FATHOM_MCP_SERVERS: JSON.stringify(value) });
    expect(() => parseMcpServers({ FATHOM_MCP_SERVERS: '{' })).toThrow(/FATHOM_MCP_SERVERS is not valid JSON/);
    expect(bad([])).toThrow(/must be a JSON object/);
    expect(bad({ docs: { url: 'ftp://x' } })).toThrow('FATHOM_MCP_SERVERS["docs"].url must be an http:// or https:// URL.');
    expect(bad({ docs: {} })).toThrow(/FATHOM_MCP_SERVERS\["docs"\] needs a url string/);
    expect(bad({ 'a b': { url: 'https://x' } })).toThrow(/a label is 1-64 letters/);
    expect(bad({ files: { command: 'x', args: [1] } })).toThrow('FATHOM_MCP_SERVERS["files"].args must be an array of strings.');
    const error = (() => {
      try {
        bad({ docs: { url: 'https://x', headers: { Authorization: 'Bearer sk-secret', n: 1 } } })();
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error?.message).toBe('FATHOM_MCP_SERVERS["docs"].headers must be an object of strings.');
  });
});
