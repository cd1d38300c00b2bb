import { useState } from 'react';
import { useApi } from '../components/ui';
import { AuthFields } from './auth-fields';
import { ListField, NumberField, TextField } from './fields';
import type { ToolsPreview } from './use-preview';
import type { Workflow } from './workflow-model';

type Card = any;

/** What "List tools" found for one card: per agent node that sees it, the tools its model will get from the card. */
interface Listed {
  agents: Array<{ id: string; name: string; tools: Array<{ name: string; description?: string }> }>;
  warnings: string[];
}

/**
 * The MCP card: its server, auth (secrets masked as on a Webhook card), the server's tools the agents may
 * see, the call deadline. "List tools" asks the server's own preview route (`POST /v1/agents/tools` with
 * `mcp_tools: true`), which contacts the MCP server through the egress guard with the saved secrets
 * (`agent_id`), and shows what each agent node's model will see from this card. Extra request headers
 * are set in the JSON view.
 */
export function McpEditor(props: { nodeId: string; card: Card; workflow: Workflow; agentId?: string; onChange(card: Card): void }) {
  const { card, onChange, nodeId } = props;
  const api = useApi();
  const config = card.config ?? {};
  const setConfig = (change: Record<string, unknown>) => onChange({ ...card, config: { ...config, ...change } });
  const [listed, setListed] = useState<Listed | undefined>();
  const [listing, setListing] = useState(false);
  const [listError, setListError] = useState<string | undefined>();

  const listTools = async () => {
    setListing(true);
    setListError(undefined);
    try {
      const preview = await api.post<ToolsPreview>('/v1/agents/tools', {
        workflow: props.workflow,
        mcp_tools: true,
        ...(props.agentId ? { agent_id: props.agentId } : {}),
      });
      const agents = preview.agents
        .filter((agent) => agent.cards.includes(nodeId))
        .map((agent) => ({
          id: agent.node_id,
          name: agent.name || agent.node_id,
          tools: agent.tools
            .filter((tool) => agent.sources[tool.function.name] === nodeId)
            .map((tool) => ({ name: tool.function.name, description: tool.function.description })),
        }));
      const warnings = [
        ...new Set(preview.agents.flatMap((agent) => agent.warnings).filter((text) => text.includes(`(node '${nodeId}')`))),
      ];
      setListed({ agents, warnings });
    } catch (error) {
      setListError((error as Error).message);
    } finally {
      setListing(false);
    }
  };

  return (
    <div className="editor-form">
      <TextField label="Card name" path="data.name" value={card.name} onChange={(name) => onChange({ ...card, name })} />
      <TextField
        label="Server URL"
        path="data.config.serverUrl"
        value={config.serverUrl}
        onChange={(serverUrl) => setConfig({ serverUrl })}
        placeholder="https://mcp.example.com/mcp"
        hint="Streamable HTTP (or the older HTTP+SSE) endpoint of the MCP server"
      />
      <AuthFields auth={config.auth ?? { type: 'none' }} onChange={(auth) => setConfig({ auth })} />
      <ListField
        label="Allowed tools"
        path="data.config.allowedTools"
        value={config.allowedTools}
        onChange={(allowedTools) => setConfig({ allowedTools: allowedTools && allowedTools.length > 0 ? allowedTools : undefined })}
        hint="The server's tool names, comma-separated; empty: all of its tools"
      />
      <NumberField
        label="Timeout (ms)"
        path="data.config.timeout"
        min={1}
        value={config.timeout}
        onChange={(timeout) => setConfig({ timeout })}
        hint="Per call and per listing; default 30000"
      />
      <p className="note">Extra request headers are set in the JSON view (data.config.headers).</p>
      <fieldset className="mcp-tools" aria-label="Tools of this MCP card">
        <legend>Tools</legend>
        <button type="button" onClick={() => void listTools()} disabled={listing}>
          {listing ? 'Listing…' : 'List tools'}
        </button>
        {listError ? (
          <p role="alert" className="error">
            {listError}
          </p>
        ) : null}
        {listed ? <ListedTools listed={listed} /> : null}
      </fieldset>
    </div>
  );
}

function ListedTools({ listed }: { listed: Listed }) {
  return (
    <div aria-live="polite">
      {listed.warnings.map((warning) => (
        <p key={warning} className="warning" role="alert">
          {warning}
        </p>
      ))}
      {listed.agents.length === 0 ? <p className="empty">Attach the card to an agent's slot to see the tools its model will get.</p> : null}
      {listed.agents.map((agent) => (
        <section key={agent.id} aria-label={`MCP tools seen by ${agent.name}`}>
          <h4>{agent.name}</h4>
          {agent.tools.length === 0 ? <p className="empty">No tool of this card.</p> : null}
          <ul className="plain">
            {agent.tools.map((tool) => (
              <li key={tool.name} className="tool">
                <code>{tool.name}</code> {tool.description ? <small>{tool.description}</small> : null}
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
