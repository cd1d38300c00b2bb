import {
  Background,
  Controls,
  MiniMap,
  ReactFlow,
  useReactFlow,
  type Connection,
  type Edge,
  type EdgeChange,
  type NodeChange,
} from '@xyflow/react';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { type CanvasNode, nodeTypes } from './flow-nodes';
import {
  connect,
  type FieldError,
  nodeTitle,
  removeEdges,
  removeNodes,
  SLOT,
  visibleSlots,
  type WfNode,
  type Workflow,
} from './workflow-model';

interface CanvasProps {
  workflow: Workflow;
  onChange(workflow: Workflow): void;
  selectedId?: string;
  onSelect(id: string | undefined): void;
  error?: FieldError;
}

interface Cached {
  source: WfNode;
  measured?: { width: number; height: number };
  selected: boolean;
  error?: string;
  slots?: string;
  node: CanvasNode;
}

/**
 * React Flow over the workflow JSON. Canvas nodes are derived from workflow nodes (an unchanged node
 * keeps its object, so dragging one node re-renders one node); moves, deletions and new edges are
 * written back into the workflow. Sizes measured by React Flow are kept beside it.
 */
export function Canvas({ workflow, onChange, selectedId, onSelect, error }: CanvasProps) {
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});
  const cache = useRef(new Map<string, Cached>());
  const workflowRef = useRef(workflow);
  workflowRef.current = workflow;
  const flow = useReactFlow();
  // When nodes are added or removed, frame them all again so a new node is never off screen.
  const nodeCount = workflow.nodes.length;
  useEffect(() => {
    if (nodeCount === 0) return;
    const frame = requestAnimationFrame(() => void flow.fitView({ maxZoom: 1, padding: 0.15 }));
    return () => cancelAnimationFrame(frame);
  }, [flow, nodeCount]);

  const nodes = useMemo(() => {
    const next = new Map<string, Cached>();
    const list = workflow.nodes.map((source, index) => {
      const slots = source.type === 'agent' ? visibleSlots(workflow, source.id) : undefined;
      const slotsKey = slots?.join(',');
      const nodeError = error?.nodeId === source.id ? error.message : undefined;
      const previous = cache.current.get(source.id);
      const selected = source.id === selectedId;
      if (
        previous &&
        previous.source === source &&
        previous.measured === measured[source.id] &&
        previous.selected === selected &&
        previous.error === nodeError &&
        previous.slots === slotsKey
      ) {
        next.set(source.id, previous);
        return previous.node;
      }
      const node: CanvasNode = {
        id: source.id,
        type: ['start', 'agent', 'webhook', 'mcp', 'end'].includes(source.type) ? source.type : 'default',
        position: source.position ?? { x: 280, y: 40 + index * 140 },
        data: { node: source, error: nodeError, slots },
        selected,
        measured: measured[source.id],
        // The focusable node element is named after the node, for keyboard and screen-reader users.
        ariaLabel: `${source.type} node ${nodeTitle(source)}`,
      };
      next.set(source.id, { source, measured: measured[source.id], selected, error: nodeError, slots: slotsKey, node });
      return node;
    });
    cache.current = next;
    return list;
  }, [workflow, measured, selectedId, error]);

  const edges = useMemo<Edge[]>(
    () =>
      workflow.edges.map((edge) => ({
        id: edge.id,
        source: edge.source,
        target: edge.target,
        targetHandle: edge.targetHandle ?? null,
        sourceHandle: edge.sourceHandle ?? null,
        className: SLOT.test(edge.targetHandle ?? '') ? 'slot-edge' : 'flow-edge',
      })),
    [workflow.edges],
  );

  const onNodesChange = useCallback(
    (changes: NodeChange<CanvasNode>[]) => {
      let current = workflowRef.current;
      const sizes: Record<string, { width: number; height: number }> = {};
      const removed = new Set<string>();
      const moved = new Map<string, { x: number; y: number }>();
      const selectedNow: string[] = [];
      const deselected: string[] = [];
      for (const change of changes) {
        if (change.type === 'dimensions' && change.dimensions) sizes[change.id] = change.dimensions;
        else if (change.type === 'position' && change.position) moved.set(change.id, change.position);
        else if (change.type === 'remove') removed.add(change.id);
        else if (change.type === 'select') (change.selected ? selectedNow : deselected).push(change.id);
      }
      // One click yields "deselect the old node" and "select the new one" in either order.
      if (selectedNow.length > 0) onSelect(selectedNow[selectedNow.length - 1]);
      else if (deselected.length > 0) onSelect(undefined);
      if (Object.keys(sizes).length > 0) setMeasured((previous) => ({ ...previous, ...sizes }));
      if (moved.size > 0) {
        current = {
          ...current,
          nodes: current.nodes.map((node) => (moved.has(node.id) ? { ...node, position: moved.get(node.id)! } : node)),
        };
      }
      if (removed.size > 0) current = removeNodes(current, removed);
      if (current !== workflowRef.current) onChange(current);
    },
    [onChange, onSelect],
  );

  const onEdgesChange = useCallback(
    (changes: EdgeChange[]) => {
      const removed = new Set(changes.filter((change) => change.type === 'remove').map((change) => change.id));
      if (removed.size > 0) onChange(removeEdges(workflowRef.current, removed));
    },
    [onChange],
  );

  const onConnect = useCallback(
    (connection: Connection) => onChange(connect(workflowRef.current, connection.source, connection.target, connection.targetHandle)),
    [onChange],
  );

  return (
    <section className="canvas" aria-label="Workflow canvas">
      <ReactFlow<CanvasNode>
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodesChange={onNodesChange}
        onEdgesChange={onEdgesChange}
        onConnect={onConnect}
        onPaneClick={() => onSelect(undefined)}
        deleteKeyCode={['Delete', 'Backspace']}
        fitView
        fitViewOptions={{ maxZoom: 1, padding: 0.15 }}
        minZoom={0.1}
      >
        <Background />
        <Controls />
        {workflow.nodes.length <= 120 ? <MiniMap pannable zoomable ariaLabel="Minimap" /> : null}
      </ReactFlow>
    </section>
  );
}
