import { type Static, Type } from '@sinclair/typebox';
import { Nullable } from '../../wire';
import { WorkflowDraft } from './workflow';

/* The live tool preview (`POST /v1/agents/tools`): what each agent node of a workflow offers its model. */

export const AgentToolsPreviewParams = Type.Object({ workflow: WorkflowDraft }, { title: 'AgentToolsPreviewParams' });
export type AgentToolsPreviewParams = Static<typeof AgentToolsPreviewParams>;

/** A tool definition as the model receives it (OpenAI's function tool). */
export const AgentToolDefinition = Type.Object(
  {
    type: Type.Literal('function'),
    function: Type.Object(
      {
        name: Type.String(),
        description: Type.Optional(Type.String()),
        parameters: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'The JSON Schema of its arguments.' })),
        strict: Type.Optional(Nullable(Type.Boolean())),
      },
      { additionalProperties: false },
    ),
  },
  { title: 'AgentToolDefinition', additionalProperties: false },
);
export type AgentToolDefinition = Static<typeof AgentToolDefinition>;

/** What one agent node of a workflow would offer its model. */
export const AgentToolsPreview = Type.Object(
  {
    node_id: Type.String(),
    name: Type.String(),
    model: Type.String(),
    tools: Type.Array(AgentToolDefinition, { description: 'The definitions the model receives, in order (built-ins first).' }),
    sources: Type.Record(Type.String(), Type.String(), { description: 'Tool name -> `built-in`, or the id of the Webhook card node.' }),
    cards: Type.Array(Type.String(), { description: 'Ids of the cards the node sees (its slots and those received through a pipeline).' }),
    warnings: Type.Array(Type.String(), { description: 'Name collisions and overwrites, as a run would log them.' }),
  },
  { title: 'AgentToolsPreview', additionalProperties: false },
);
export type AgentToolsPreview = Static<typeof AgentToolsPreview>;

export const WorkflowToolsPreview = Type.Object(
  {
    object: Type.Literal('agent.tools_preview'),
    agents: Type.Array(AgentToolsPreview),
    validation_error: Nullable(
      Type.Object(
        { message: Type.String(), param: Nullable(Type.String()), code: Type.String() },
        { additionalProperties: false, description: 'The first failure a save would report, or null when it would save.' },
      ),
    ),
  },
  { title: 'WorkflowToolsPreview', additionalProperties: false },
);
export type WorkflowToolsPreview = Static<typeof WorkflowToolsPreview>;
