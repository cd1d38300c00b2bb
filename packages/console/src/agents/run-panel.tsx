import { useRef, useState, type FormEvent } from 'react';
import type { AgentRun, AgentRunSummary, List } from '../api/types';
import { Empty, ErrorMessage, formatDate, useApi, useLoad } from '../components/ui';
import type { Workflow } from './workflow-model';

/** One line of the live timeline, as its event arrived. */
type TimelineEvent =
  | { kind: 'run.started'; text: string }
  | { kind: 'message'; node: string; text: string }
  | { kind: 'tool_use'; node: string; tool: string; input: unknown }
  | { kind: 'tool_result'; node: string; tool: string; output: string }
  | { kind: 'run.completed' | 'run.failed' | 'tools_unavailable'; text: string };

/** An event with when it arrived (ms since the run was started) and, for a tool result, how long the call took. */
type TimelineEntry = TimelineEvent & { at: number; took?: number };

const milliseconds = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(2)} s`);

/**
 * Runs the published version with a message and the start node's variables, streaming its events
 * into a timeline; lists past runs with their stored steps.
 */
export function RunPanel({ agentId, workflow, published }: { agentId: string; workflow: Workflow; published: boolean }) {
  const api = useApi();
  const variables: Array<{ name: string; required?: boolean; description?: string }> =
    workflow.nodes.find((node) => node.type === 'start')?.data?.variables ?? [];
  const [message, setMessage] = useState('');
  const [values, setValues] = useState<Record<string, string>>({});
  const [timeline, setTimeline] = useState<TimelineEntry[]>([]);
  const [running, setRunning] = useState(false);
  const [error, setError] = useState<Error | undefined>();
  const runs = useLoad(
    (signal) => api.get<List<AgentRunSummary>>(`/v1/agents/${encodeURIComponent(agentId)}/runs`, { limit: 20 }, signal),
    [agentId],
  );
  const [openRun, setOpenRun] = useState<string | undefined>();

  // When the current run was started (a ref: the stream's callbacks read it, no render needs it).
  const began = useRef(0);
  const push = (event: TimelineEvent) =>
    setTimeline((list) => {
      const at = performance.now() - began.current;
      const last = list[list.length - 1];
      // Deltas of one node's answer join into one message line.
      if (event.kind === 'message' && last?.kind === 'message' && last.node === event.node) {
        return [...list.slice(0, -1), { ...last, text: last.text + event.text }];
      }
      const entry: TimelineEntry = { ...event, at };
      if (event.kind === 'tool_result') {
        const call = list.findLast((item) => item.kind === 'tool_use' && item.tool === event.tool && item.node === event.node);
        if (call) entry.took = at - call.at;
      }
      return [...list, entry];
    });

  const start = async (event: FormEvent) => {
    event.preventDefault();
    setTimeline([]);
    began.current = performance.now();
    setError(undefined);
    setRunning(true);
    try {
      const given = Object.fromEntries(Object.entries(values).filter(([, value]) => value !== ''));
      for await (const part of api.stream(`/v1/agents/${encodeURIComponent(agentId)}/run`, { message, variables: given, stream: true })) {
        const data = part.data;
        if (part.event === 'run.started') push({ kind: 'run.started', text: `version ${data.run.version}, run ${data.run.id}` });
        else if (part.event === 'message.delta') push({ kind: 'message', node: data.node_id, text: data.content });
        else if (part.event === 'tool_use') push({ kind: 'tool_use', node: data.node_id, tool: data.tool, input: data.input });
        else if (part.event === 'tool_result') push({ kind: 'tool_result', node: data.node_id, tool: data.tool, output: data.output });
        else if (part.event === 'tools_unavailable') push({ kind: 'tools_unavailable', text: data.error });
        else if (part.event === 'run.completed') push({ kind: 'run.completed', text: data.output });
        else if (part.event === 'run.failed') push({ kind: 'run.failed', text: data.error });
        else if (part.event === 'error') throw new Error(data?.error?.message ?? 'The run failed.');
      }
    } catch (caught) {
      setError(caught as Error);
    } finally {
      setRunning(false);
      runs.reload();
    }
  };

  return (
    <div className="run-panel">
      {!published ? <p className="note">Publish the agent to run it: only the published version runs.</p> : null}
      <form onSubmit={start} className="editor-form" aria-label="Run the agent">
        <div className="field-row">
          <label htmlFor="run-message">Run message</label>
          <textarea id="run-message" rows={2} value={message} onChange={(event) => setMessage(event.target.value)} />
        </div>
        {variables.map((variable) => (
          <div className="field-row" key={variable.name}>
            <label htmlFor={`run-var-${variable.name}`}>
              {variable.name}
              {variable.required ? ' (required)' : ''}
            </label>
            <input
              id={`run-var-${variable.name}`}
              value={values[variable.name] ?? ''}
              onChange={(event) => setValues((current) => ({ ...current, [variable.name]: event.target.value }))}
            />
            {variable.description ? <small>{variable.description}</small> : null}
          </div>
        ))}
        <button type="submit" disabled={running || !published}>
          {running ? 'Running…' : 'Run'}
        </button>
      </form>
      <ErrorMessage error={error} />
      {timeline.length > 0 ? (
        <ol className="timeline" aria-label="Run timeline" aria-live="polite">
          {timeline.map((entry, index) => (
            // biome-ignore lint/suspicious/noArrayIndexKey: the timeline only grows; an entry never moves.
            <li key={index} className={`event event-${entry.kind.replace('.', '-')}`}>
              <span className="event-name">{entry.kind === 'message' ? 'message.delta' : entry.kind}</span>{' '}
              {entry.kind === 'tool_use' ? (
                <>
                  <code>{entry.tool}</code> <pre>{JSON.stringify(entry.input, null, 2)}</pre>
                </>
              ) : entry.kind === 'tool_result' ? (
                <>
                  <code>{entry.tool}</code> <pre>{entry.output}</pre>
                </>
              ) : entry.kind === 'message' ? (
                <>
                  <small>{entry.node}</small> <span>{entry.text}</span>
                </>
              ) : (
                <span>{entry.text}</span>
              )}{' '}
              <small className="event-time" title="since the run was started">
                +{milliseconds(entry.at)}
                {entry.took !== undefined ? `, took ${milliseconds(entry.took)}` : ''}
              </small>
            </li>
          ))}
        </ol>
      ) : null}
      <h3>Past runs</h3>
      <ErrorMessage error={runs.error} />
      {runs.data && runs.data.data.length === 0 ? <Empty>No runs yet.</Empty> : null}
      <ul className="plain runs">
        {(runs.data?.data ?? []).map((run) => (
          <li key={run.id}>
            <button
              type="button"
              className="link"
              onClick={() => setOpenRun(openRun === run.id ? undefined : run.id)}
              aria-expanded={openRun === run.id}
            >
              {formatDate(run.created_at)} · v{run.version} · {run.status} · {run.message.slice(0, 40)}
            </button>
            {openRun === run.id ? <RunSteps agentId={agentId} runId={run.id} /> : null}
          </li>
        ))}
      </ul>
    </div>
  );
}

function RunSteps({ agentId, runId }: { agentId: string; runId: string }) {
  const api = useApi();
  const run = useLoad(
    (signal) =>
      api.get<{ run: AgentRun }>(`/v1/agents/${encodeURIComponent(agentId)}/runs/${encodeURIComponent(runId)}`, undefined, signal),
    [runId],
  );
  if (run.error) return <ErrorMessage error={run.error} />;
  if (!run.data) return <p>Loading…</p>;
  const { steps, output, error } = run.data.run;
  return (
    <ol className="steps" aria-label={`Steps of run ${runId}`}>
      {steps.map((step) => (
        <li key={step.id}>
          {step.type === 'tool_call' ? (
            <>
              tool call <code>{step.tool}</code> <pre>{JSON.stringify(step.input)}</pre> <pre>{step.output}</pre>
            </>
          ) : step.type === 'tools_unavailable' ? (
            <>
              tools unavailable for <code>{step.node_id}</code>: {step.error}
            </>
          ) : (
            <>
              answer of <code>{step.node_id}</code>: {step.content}
            </>
          )}
        </li>
      ))}
      <li>{error ? `failed: ${error}` : `output: ${output ?? ''}`}</li>
    </ol>
  );
}
