import { findRunningServer } from './server-lock';

export const MCP_CLIENTS = ['cursor', 'claude-code', 'vscode', 'claude-desktop'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

const WHERE: Record<McpClient, string> = {
  cursor: '~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
  'claude-code': '.mcp.json in a project',
  vscode: '.vscode/mcp.json (VS Code asks for the key once and keeps it in its secret storage)',
  'claude-desktop': 'claude_desktop_config.json (bridged with mcp-remote: Claude Desktop starts stdio servers only)',
};

/** The snippet of docs/mcp.md for one client, with this server's `/mcp` URL and key filled in. */
export function mcpSnippet(client: McpClient, url: string, key: string): unknown {
  const headers = { Authorization: `Bearer ${key}` };
  switch (client) {
    case 'cursor':
      return { mcpServers: { fathom: { url, headers } } };
    case 'claude-code':
      return { mcpServers: { fathom: { type: 'http', url, headers } } };
    case 'vscode':
      return {
        inputs: [{ type: 'promptString', id: 'fathom-key', description: 'Fathom API key', password: true }],
        // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own input placeholder, not a template.
        servers: { fathom: { type: 'http', url, headers: { Authorization: 'Bearer ${input:fathom-key}' } } },
      };
    case 'claude-desktop':
      return {
        mcpServers: {
          fathom: {
            command: 'npx',
            // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands it from env.
            args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${FATHOM_AUTH}'],
            env: { FATHOM_AUTH: `Bearer ${key}` },
          },
        },
      };
  }
}

/**
 * `fathom mcp config`: the server is `--base-url`/`FATHOM_BASE_URL`, else the running server of the data
 * dir, else `http://localhost:$PORT`; the key is `--api-key`/`FATHOM_API_KEY`, else a placeholder.
 */
export async function mcpConfig(options: { client: McpClient; baseUrl?: string; apiKey?: string }): Promise<void> {
  let base = options.baseUrl ?? process.env.FATHOM_BASE_URL;
  if (!base) {
    const { loadConfig } = await import('@fathom/core');
    const config = loadConfig();
    base = findRunningServer(config.dataDir)?.url ?? `http://localhost:${config.port}`;
  }
  const url = `${base.replace(/\/+$/, '').replace(/\/v1$/, '')}/mcp`;
  const key = options.apiKey ?? process.env.FATHOM_API_KEY;
  console.log(JSON.stringify(mcpSnippet(options.client, url, key ?? 'fth_your_key'), null, 2));
  process.stderr.write(
    `Put this in ${WHERE[options.client]}.${key ? '' : ' Replace fth_your_key with an API key (FATHOM_API_KEY was not set).'}\n`,
  );
}
