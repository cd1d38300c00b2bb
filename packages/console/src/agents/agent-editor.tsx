import '@xyflow/react/dist/style.css';
import { ReactFlowProvider } from '@xyflow/react';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { ApiError } from '../api/client';
import type { Agent, ModelsPage } from '../api/types';
import { ErrorMessage, useApi, useLoad } from '../components/ui';
import { Canvas } from './canvas';
import { FieldErrorContext } from './fields';
import { JsonView } from './json-view';
import { NodeEditor } from './node-editor';
import { RunPanel } from './run-panel';
import { ToolPreview } from './tool-preview';
import { usePreview } from './use-preview';
import { VersionsPanel } from './versions-panel';
import { addNode, emptyWorkflow, type FieldError, locateError, type NodeType, removeNodes, type Workflow } from './workflow-model';

const TABS = ['Node', 'JSON', 'Tools', 'Run', 'Versions'] as const;
type Tab = (typeof TABS)[number];

/** The agent editor: canvas, forms, JSON view, live tool preview, run panel and versions. */
export default function AgentEditor({ agentId }: { agentId: string | null }) {
  const api = useApi();
  const [agent, setAgent] = useState<Agent | undefined>();
  const [name, setName] = useState('New agent');
  const [workflow, setWorkflow] = useState<Workflow>(emptyWorkflow);
  const [dirty, setDirty] = useState(false);
  const [selectedId, setSelectedId] = useState<string | undefined>();
  const [tab, setTab] = useState<Tab>('Node');
  const [saveError, setSaveError] = useState<FieldError | undefined>();
  const [pending, setPending] = useState<'save' | 'publish' | undefined>();
  const [loadError, setLoadError] = useState<Error | undefined>();
  const models = useLoad((signal) => api.get<ModelsPage>('/v1/models', undefined, signal), []);
  const modelIds = useMemo(() => (models.data?.data ?? []).map((model) => model.id), [models.data]);

  useEffect(() => {
    if (!agentId) return;
    api.get<{ agent: Agent }>(`/v1/agents/${encodeURIComponent(agentId)}`).then(
      ({ agent: loaded }) => {
        setAgent(loaded);
        setName(loaded.name);
        setWorkflow(loaded.workflow);
      },
      (error: Error) => setLoadError(error),
    );
  }, [api, agentId]);

  const change = useCallback((next: Workflow) => {
    setWorkflow(next);
    setDirty(true);
  }, []);

  const { preview, error: previewError } = usePreview(api, workflow);
  // A failed save is shown until the next save; otherwise the live validation of the preview is shown.
  const validation = useMemo(
    () =>
      saveError ?? (preview?.validation_error && workflow.nodes.length > 0 ? locateError(workflow, preview.validation_error) : undefined),
    [saveError, preview, workflow],
  );

  const save = async (): Promise<Agent | undefined> => {
    setSaveError(undefined);
    try {
      const body = { name, workflow };
      const answer = agent
        ? await api.post<{ agent: Agent }>(`/v1/agents/${encodeURIComponent(agent.id)}`, body)
        : await api.post<{ agent: Agent }>('/v1/agents', body);
      setAgent(answer.agent);
      // The server answers with secrets masked: from now on the page holds only the mask.
      setWorkflow(answer.agent.workflow);
      setDirty(false);
      if (!agent) window.history.replaceState(null, '', `#/agents/${encodeURIComponent(answer.agent.id)}`);
      return answer.agent;
    } catch (error) {
      const located = error instanceof ApiError ? locateError(workflow, error) : { message: (error as Error).message };
      setSaveError(located);
      if (located.nodeId) {
        setSelectedId(located.nodeId);
        setTab('Node');
      }
      return undefined;
    }
  };

  const onSave = async () => {
    setPending('save');
    await save();
    setPending(undefined);
  };

  const onPublish = async () => {
    setPending('publish');
    const saved = dirty || !agent ? await save() : agent;
    if (saved) {
      try {
        const answer = await api.post<{ agent: Agent }>(`/v1/agents/${encodeURIComponent(saved.id)}/publish`);
        setAgent(answer.agent);
      } catch (error) {
        setSaveError(error instanceof ApiError ? locateError(workflow, error) : { message: (error as Error).message });
      }
    }
    setPending(undefined);
  };

  const add = (type: NodeType) => {
    const [next, id] = addNode(workflow, type, modelIds);
    change(next);
    setSelectedId(id);
    setTab('Node');
  };

  const selected = workflow.nodes.find((node) => node.id === selectedId);
  const unpublished = dirty || !agent || agent.has_unpublished_changes;
  const nodeError = validation?.nodeId === selectedId ? validation : undefined;

  if (loadError) {
    return (
      <div className="page">
        <ErrorMessage error={loadError} />
        <a href="#/agents">Back to agents</a>
      </div>
    );
  }

  return (
    <ReactFlowProvider>
      <div className="agent-editor">
        <div className="editor-bar">
          <a href="#/agents">← Agents</a>
          <label htmlFor="agent-name" className="visually-hidden">
            Agent name
          </label>
          <input id="agent-name" value={name} onChange={(event) => (setName(event.target.value), setDirty(true))} />
          <span className="agent-status">{agent ? (agent.version ? `Published v${agent.version}` : 'Draft') : 'Not saved'}</span>
          {unpublished ? (
            <span className="badge" role="status">
              Unpublished changes
            </span>
          ) : null}
          <button type="button" onClick={() => void onSave()} disabled={pending !== undefined}>
            {pending === 'save' ? 'Saving…' : 'Save draft'}
          </button>
          <button type="button" className="primary" onClick={() => void onPublish()} disabled={pending !== undefined}>
            {pending === 'publish' ? 'Publishing…' : 'Publish'}
          </button>
        </div>
        <div className="editor-toolbar" role="toolbar" aria-label="Add nodes">
          {(['start', 'agent', 'webhook', 'end'] as const).map((type) => (
            <button key={type} type="button" onClick={() => add(type)}>
              Add {type} node
            </button>
          ))}
        </div>
        {!saveError && preview?.validation_error && workflow.nodes.length > 0 ? (
          <p className="note" aria-live="polite">
            Not saveable yet: {preview.validation_error.message}
          </p>
        ) : null}
        {saveError ? (
          <div role="alert" className="error">
            {saveError.nodeId ? <strong>Node {saveError.nodeId}: </strong> : null}
            {saveError.message}
          </div>
        ) : null}
        <div className="editor-body">
          <Canvas workflow={workflow} onChange={change} selectedId={selectedId} onSelect={setSelectedId} error={validation} />
          <aside className="side-panel" aria-label="Editor panel">
            <div role="tablist" aria-label="Panels">
              {TABS.map((entry) => (
                <button
                  key={entry}
                  type="button"
                  role="tab"
                  id={`tab-${entry}`}
                  aria-selected={tab === entry}
                  aria-controls={`panel-${entry}`}
                  onClick={() => setTab(entry)}
                >
                  {entry}
                </button>
              ))}
            </div>
            <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} className="panel-body">
              {tab === 'Node' ? (
                selected ? (
                  <FieldErrorContext.Provider value={nodeError}>
                    <NodeEditor
                      workflow={workflow}
                      node={selected}
                      models={modelIds}
                      onChange={change}
                      onDelete={() => {
                        change(removeNodes(workflow, new Set([selected.id])));
                        setSelectedId(undefined);
                      }}
                    />
                  </FieldErrorContext.Provider>
                ) : (
                  <p className="empty">
                    {workflow.nodes.length === 0
                      ? 'The canvas is empty. Add a start node, an agent, a webhook card and an end node with the buttons above.'
                      : 'Select a node on the canvas to edit it.'}
                  </p>
                )
              ) : null}
              {tab === 'JSON' ? <JsonView workflow={workflow} onChange={change} /> : null}
              {tab === 'Tools' ? <ToolPreview preview={preview} error={previewError} /> : null}
              {tab === 'Run' ? (
                agent ? (
                  <RunPanel agentId={agent.id} workflow={workflow} published={agent.version !== null} />
                ) : (
                  <p className="empty">Save and publish the agent to run it.</p>
                )
              ) : null}
              {tab === 'Versions' ? (
                agent ? (
                  <VersionsPanel
                    agentId={agent.id}
                    refreshKey={agent.version}
                    onRestore={(restored, restoredName) => {
                      change(restored);
                      setName(restoredName);
                    }}
                  />
                ) : (
                  <p className="empty">Nothing published yet.</p>
                )
              ) : null}
            </div>
          </aside>
        </div>
      </div>
    </ReactFlowProvider>
  );
}
