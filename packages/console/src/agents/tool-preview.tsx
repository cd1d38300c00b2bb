import type { ToolsPreview } from './use-preview';

/** The tools each agent node's model will see, as the server's compiler builds them. */
export function ToolPreview({ preview, error }: { preview?: ToolsPreview; error?: Error }) {
  if (error) {
    return (
      <p role="alert" className="error">
        {error.message}
      </p>
    );
  }
  if (!preview) return <p aria-live="polite">Compiling…</p>;
  if (preview.agents.length === 0) return <p className="empty">Add an agent node to see the tools its model will get.</p>;
  return (
    <div className="tool-preview">
      {preview.agents.map((agent) => (
        <section key={agent.node_id} aria-label={`Tools of ${agent.name || agent.node_id}`}>
          <h3>
            {agent.name || agent.node_id} <small>{agent.model}</small>
          </h3>
          {agent.cards.length > 0 ? <p className="note">Cards seen: {agent.cards.join(', ')}</p> : null}
          {agent.warnings.map((warning) => (
            <p key={warning} className="warning">
              {warning}
            </p>
          ))}
          <ul className="plain">
            {agent.tools.map((tool) => (
              <li key={tool.function.name} className="tool">
                <details>
                  <summary>
                    <code>{tool.function.name}</code>{' '}
                    <small>
                      ({agent.sources[tool.function.name] === 'built-in' ? 'built-in' : `card ${agent.sources[tool.function.name]}`})
                    </small>
                  </summary>
                  <pre>{tool.function.description}</pre>
                  <pre>{JSON.stringify(tool.function.parameters, null, 2)}</pre>
                </details>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </div>
  );
}
