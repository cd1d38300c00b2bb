import { type Static, Type } from '@sinclair/typebox';
import { WebhookCard } from '../../webhooks/wire/webhook-card';
import { OptionalNullable, TaggedUnion } from '../../wire';
import { WORKFLOW_LIMITS } from '../workflow-limits';

/**
 * The workflow format of the agent service (spec "Agent"): a graph of nodes joined by edges.
 * `start -> agent(s) -> end` is the flow; Webhook cards sit beside it, wired to an agent's `slot-N`.
 * Declared once: the routes validate with it, core checks stored workflows and drafts with it, and the
 * console's editor uses its types. Every object stays open: editors keep their own keys on nodes and
 * edges (canvas positions, UI state), which are saved and given back as they were sent.
 *
 * The counts a schema can say are here (`maxItems`: nodes, edges, routes of one card, parameters of one
 * route); the rules it cannot (routes of all cards together, unique ids, the graph, the tools the agents
 * see) are checked by `validateWorkflow`.
 */

const NodeId = Type.String({ minLength: 1 });

/** A run variable declared on the start node, referenced as `{{name}}` in prompts and the message. */
export const StartVariable = Type.Object(
  {
    name: Type.String({
      pattern: '^[A-Za-z_][A-Za-z0-9_]*$',
      description: 'A letter or underscore, then letters, digits or underscores (referenced as `{{name}}`).',
    }),
    type: Type.Optional(Type.String({ description: 'Only `input` is defined.' })),
    required: Type.Optional(Type.Boolean()),
    description: Type.Optional(Type.String()),
  },
  { title: 'StartVariable' },
);
export type StartVariable = Static<typeof StartVariable>;

export const StartNode = Type.Object(
  {
    id: NodeId,
    type: Type.Literal('start'),
    data: Type.Object({ label: Type.Optional(Type.String()), variables: Type.Optional(Type.Array(StartVariable)) }),
  },
  { title: 'StartNode' },
);
export type StartNode = Static<typeof StartNode>;

export const AgentNode = Type.Object(
  {
    id: NodeId,
    type: Type.Literal('agent'),
    data: Type.Object({
      name: Type.String({ minLength: 1 }),
      model: Type.String({
        pattern: '^\\S+$',
        description:
          'A model id without spaces: `<vendor>/<model>`, or an id the installation maps (FATHOM_MODEL_ALIASES, FATHOM_DEFAULT_VENDOR); checked when the agent is published.',
      }),
      system_prompt: Type.Optional(Type.String()),
      config: Type.Optional(
        Type.Object({
          tools_filter: Type.Optional(
            Type.Array(Type.String(), { description: 'Tool names this agent may call; absent or empty means every tool it sees.' }),
          ),
        }),
      ),
    }),
  },
  { title: 'AgentNode' },
);
export type AgentNode = Static<typeof AgentNode>;

/** A Webhook card on the canvas: its `data` is the card. */
export const WebhookNode = Type.Object({ id: NodeId, type: Type.Literal('webhook'), data: WebhookCard }, { title: 'WebhookNode' });
export type WebhookNode = Static<typeof WebhookNode>;

export const EndNode = Type.Object(
  {
    id: NodeId,
    type: Type.Literal('end'),
    data: Type.Object({ label: Type.Optional(Type.String()), status: Type.Optional(Type.String({ description: 'E.g. `success`.' })) }),
  },
  { title: 'EndNode' },
);
export type EndNode = Static<typeof EndNode>;

export const WorkflowNode = TaggedUnion('type', [StartNode, AgentNode, WebhookNode, EndNode], { title: 'WorkflowNode' });
export type WorkflowNode = Static<typeof WorkflowNode>;
export type WorkflowNodeType = WorkflowNode['type'];

export const WorkflowEdge = Type.Object(
  {
    id: NodeId,
    source: NodeId,
    target: NodeId,
    targetHandle: OptionalNullable(
      Type.String({ description: '`slot-N` when a Webhook card is wired to an agent; absent on flow edges.' }),
    ),
    sourceHandle: OptionalNullable(Type.String()),
  },
  { title: 'WorkflowEdge' },
);
export type WorkflowEdge = Static<typeof WorkflowEdge>;

export const Workflow = Type.Object(
  {
    nodes: Type.Array(WorkflowNode, { maxItems: WORKFLOW_LIMITS.nodes }),
    edges: Type.Array(WorkflowEdge, { maxItems: WORKFLOW_LIMITS.edges }),
  },
  { title: 'Workflow' },
);
export type Workflow = Static<typeof Workflow>;

/**
 * A workflow being edited, as the tool preview takes it: anything in its nodes and edges (an unfinished
 * card, a node without data), within the workflow's counts. The preview reports what a save would
 * refuse instead of refusing it.
 */
export const WorkflowDraft = Type.Object(
  {
    nodes: Type.Optional(Type.Array(Type.Unknown(), { maxItems: WORKFLOW_LIMITS.nodes })),
    edges: Type.Optional(Type.Array(Type.Unknown(), { maxItems: WORKFLOW_LIMITS.edges })),
  },
  { title: 'WorkflowDraft' },
);
export type WorkflowDraft = Static<typeof WorkflowDraft>;
