import { useState } from 'react';
import { ListField, TextField } from './fields';
import { WebhookEditor } from './webhook-editor';
import { connect, nodeTitle, removeEdges, type WfNode, type Workflow } from './workflow-model';

/**
 * The form of the selected node, and its connections: every edge can be added and removed here with
 * the keyboard, as well as by dragging between handles on the canvas.
 */
export function NodeEditor(props: {
  workflow: Workflow;
  node: WfNode;
  models: string[];
  onChange(workflow: Workflow): void;
  onDelete(): void;
}) {
  const { workflow, node, onChange } = props;
  // The form edits the data of the node's own type: the node keeps its type.
  const setData = (data: WfNode['data']) =>
    onChange({ ...workflow, nodes: workflow.nodes.map((entry) => (entry.id === node.id ? ({ ...entry, data } as WfNode) : entry)) });
  return (
    <section className="node-editor" aria-label={`Edit ${node.type} node ${nodeTitle(node)}`}>
      <h3>
        {node.type} node <code>{node.id}</code>
      </h3>
      {node.type === 'start' ? <StartEditor data={node.data ?? {}} onChange={setData} /> : null}
      {node.type === 'agent' ? (
        <div className="editor-form">
          <TextField label="Agent name" path="data.name" value={node.data.name} onChange={(name) => setData({ ...node.data, name })} />
          <TextField
            label="Model"
            path="data.model"
            value={node.data.model}
            onChange={(model) => setData({ ...node.data, model })}
            hint={props.models.length ? `Configured: ${props.models.join(', ')}` : '<vendor>/<model>'}
          />
          <TextField
            label="System prompt"
            path="data.system_prompt"
            value={node.data.system_prompt}
            onChange={(system_prompt) => setData({ ...node.data, system_prompt })}
            multiline
            hint="{{variable}} inserts a start variable"
          />
          <ListField
            label="Allowed tools"
            path="data.config.tools_filter"
            value={node.data.config?.tools_filter}
            onChange={(filter) => setData({ ...node.data, config: { ...node.data.config, tools_filter: filter ?? [] } })}
            hint="Tool names, comma-separated; empty: every tool the agent sees"
          />
        </div>
      ) : null}
      {node.type === 'webhook' ? <WebhookEditor card={node.data ?? {}} onChange={setData} /> : null}
      {node.type === 'end' ? (
        <div className="editor-form">
          <TextField label="End label" path="data.label" value={node.data.label} onChange={(label) => setData({ ...node.data, label })} />
          <TextField
            label="End status"
            path="data.status"
            value={node.data.status}
            onChange={(status) => setData({ ...node.data, status })}
          />
        </div>
      ) : null}
      <Connections workflow={workflow} node={node} onChange={onChange} />
      <button type="button" className="danger" onClick={props.onDelete}>
        Delete node {nodeTitle(node)}
      </button>
    </section>
  );
}

function StartEditor({ data, onChange }: { data: any; onChange(data: any): void }) {
  const variables: any[] = data.variables ?? [];
  const setVariable = (index: number, change: Record<string, unknown>) =>
    onChange({ ...data, variables: variables.map((variable, at) => (at === index ? { ...variable, ...change } : variable)) });
  return (
    <div className="editor-form">
      <TextField label="Start label" path="data.label" value={data.label} onChange={(label) => onChange({ ...data, label })} />
      {variables.map((variable, index) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a variable is identified by its position while its name is typed.
        <fieldset key={index}>
          <legend>Variable {index + 1}</legend>
          <TextField
            label={`Variable ${index + 1} name`}
            path={`data.variables[${index}].name`}
            value={variable.name}
            onChange={(name) => setVariable(index, { name })}
          />
          <TextField
            label={`Variable ${index + 1} description`}
            path={`data.variables[${index}].description`}
            value={variable.description}
            onChange={(description) => setVariable(index, { description })}
          />
          <div className="field-row check">
            <input
              id={`variable-required-${index}`}
              type="checkbox"
              checked={variable.required === true}
              onChange={(event) => setVariable(index, { required: event.target.checked })}
            />
            <label htmlFor={`variable-required-${index}`}>Variable {index + 1} required</label>
          </div>
          <button type="button" onClick={() => onChange({ ...data, variables: variables.filter((_, at) => at !== index) })}>
            Remove variable {index + 1}
          </button>
        </fieldset>
      ))}
      <button
        type="button"
        onClick={() => onChange({ ...data, variables: [...variables, { name: '', type: 'input', required: false, description: '' }] })}
      >
        Add variable
      </button>
    </div>
  );
}

function Connections({ workflow, node, onChange }: { workflow: Workflow; node: WfNode; onChange(workflow: Workflow): void }) {
  const [target, setTarget] = useState('');
  const title = (id: string) => {
    const found = workflow.nodes.find((entry) => entry.id === id);
    return found ? nodeTitle(found) : id;
  };
  const edges = workflow.edges.filter((edge) => edge.source === node.id || edge.target === node.id);
  const candidates = workflow.nodes.filter((other) => {
    if (other.id === node.id) return false;
    if (node.type === 'webhook') return other.type === 'agent';
    if (node.type === 'end') return false;
    return other.type === 'agent' || other.type === 'end';
  });
  const label = node.type === 'webhook' ? 'Attach card to agent' : 'Connect to';
  return (
    <fieldset className="connections">
      <legend>Connections</legend>
      {edges.length === 0 ? <p className="empty">Not connected.</p> : null}
      <ul className="plain">
        {edges.map((edge) => (
          <li key={edge.id}>
            {title(edge.source)} → {title(edge.target)}
            {edge.targetHandle ? ` (${edge.targetHandle})` : ''}{' '}
            <button
              type="button"
              onClick={() => onChange(removeEdges(workflow, new Set([edge.id])))}
              aria-label={`Remove edge ${title(edge.source)} to ${title(edge.target)}`}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {candidates.length > 0 ? (
        <div className="inline">
          <label htmlFor={`connect-${node.id}`}>{label}</label>
          <select id={`connect-${node.id}`} value={target} onChange={(event) => setTarget(event.target.value)}>
            <option value="">Choose a node…</option>
            {candidates.map((candidate) => (
              <option key={candidate.id} value={candidate.id}>
                {nodeTitle(candidate)} ({candidate.type})
              </option>
            ))}
          </select>
          <button
            type="button"
            disabled={!target}
            onClick={() => {
              onChange(connect(workflow, node.id, target));
              setTarget('');
            }}
          >
            Connect
          </button>
        </div>
      ) : null}
    </fieldset>
  );
}
