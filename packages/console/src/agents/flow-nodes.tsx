import { Handle, Position, type Node, type NodeProps } from '@xyflow/react';
import { memo } from 'react';
import { nodeTitle, type WfNode } from './workflow-model';

/** What each canvas node renders: its workflow node, the error placed on it, and (agents) its slots. */
export interface CanvasNodeData extends Record<string, unknown> {
  node: WfNode;
  error?: string;
  slots?: number[];
}

export type CanvasNode = Node<CanvasNodeData>;

function Frame({ data, kind, children }: { data: CanvasNodeData; kind: string; children?: React.ReactNode }) {
  const title = nodeTitle(data.node);
  return (
    <div className={`flow-node flow-node-${kind}${data.error ? ' has-error' : ''}`}>
      <div className="flow-node-kind">{kind}</div>
      <div className="flow-node-title">{title}</div>
      {children}
      {data.error ? (
        <div className="flow-node-error" role="alert">
          {data.error}
        </div>
      ) : null}
    </div>
  );
}

export const StartNode = memo(({ data }: NodeProps<CanvasNode>) => {
  const variables = data.node.type === 'start' ? (data.node.data?.variables ?? []) : [];
  return (
    <Frame data={data} kind="start">
      {variables.length > 0 ? (
        <div className="flow-node-detail">{variables.map((variable) => `{{${variable.name}}}`).join(' ')}</div>
      ) : null}
      <Handle type="source" position={Position.Bottom} aria-label={`${nodeTitle(data.node)} output`} />
    </Frame>
  );
});

export const AgentNode = memo(({ data }: NodeProps<CanvasNode>) => {
  const title = nodeTitle(data.node);
  const slots = data.slots ?? [0];
  return (
    <Frame data={data} kind="agent">
      <div className="flow-node-detail">{(data.node.type === 'agent' && data.node.data?.model) || 'no model'}</div>
      <Handle type="target" position={Position.Top} aria-label={`${title} input`} />
      <div className="slots">
        {slots.map((slot) => (
          <div className="slot" key={slot}>
            <Handle
              type="target"
              id={`slot-${slot}`}
              position={Position.Left}
              className="slot-handle"
              aria-label={`${title} slot-${slot}`}
              title={`slot-${slot}`}
            />
            <span>slot-{slot}</span>
          </div>
        ))}
      </div>
      <Handle type="source" position={Position.Bottom} aria-label={`${title} output`} />
    </Frame>
  );
});

export const WebhookNode = memo(({ data }: NodeProps<CanvasNode>) => {
  const config = data.node.type === 'webhook' ? data.node.data?.config : undefined;
  const routes = config?.routes ?? [];
  return (
    <Frame data={data} kind="webhook">
      <div className="flow-node-detail">{config?.baseUrl || 'no base URL'}</div>
      <ul className="flow-node-routes">
        {routes.map((route, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: routes may not have ids yet; the list is display-only.
          <li key={index} className={route.enabled === false ? 'disabled' : undefined}>
            {route.name || `route ${index + 1}`}
          </li>
        ))}
      </ul>
      <Handle type="source" position={Position.Right} aria-label={`${nodeTitle(data.node)} card output`} />
    </Frame>
  );
});

export const EndNode = memo(({ data }: NodeProps<CanvasNode>) => (
  <Frame data={data} kind="end">
    <div className="flow-node-detail">{(data.node.type === 'end' && data.node.data?.status) || ''}</div>
    <Handle type="target" position={Position.Top} aria-label={`${nodeTitle(data.node)} input`} />
  </Frame>
));

export const nodeTypes = { start: StartNode, agent: AgentNode, webhook: WebhookNode, end: EndNode };
