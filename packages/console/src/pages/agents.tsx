import type { Agent as AgentSummary, List } from '../api/types';
import { Empty, ErrorMessage, formatDate, Section, useApi, useLoad } from '../components/ui';

/** The account's agents; each opens in the canvas editor. */
export function AgentsPage() {
  const api = useApi();
  const agents = useLoad((signal) => api.get<List<AgentSummary>>('/v1/agents', { limit: 100 }, signal), []);
  return (
    <Section
      title="Agents"
      actions={
        <a className="button" href="#/agents/new">
          New agent
        </a>
      }
    >
      <ErrorMessage error={agents.error} />
      {agents.data && agents.data.data.length === 0 ? (
        <Empty>No agents yet. Create one with “New agent” and build its workflow on the canvas.</Empty>
      ) : null}
      {agents.data && agents.data.data.length > 0 ? (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Version</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.data.map((agent) => (
              <tr key={agent.id}>
                <td>
                  <a href={`#/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</a>
                </td>
                <td>
                  {agent.status}
                  {agent.has_unpublished_changes && agent.status === 'published' ? ' · unpublished changes' : ''}
                </td>
                <td>{agent.version ?? '—'}</td>
                <td>{formatDate(agent.updated_at)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </Section>
  );
}
