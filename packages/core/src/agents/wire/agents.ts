import { type Static, Type } from '@sinclair/typebox';
import { FIELD_LIMITS } from '../../internal/field-limits';
import { Deleted, ListPage, ListQuery, Nullable, StringEnum } from '../../wire';
import { Workflow } from './workflow';

/* Agents and their published versions (Fathom's agent service; no OpenAI counterpart). */

const AgentName = Type.String({ minLength: 1, maxLength: FIELD_LIMITS.name });

export const AgentCreateParams = Type.Object(
  { name: AgentName, workflow: Workflow },
  { title: 'AgentCreateParams', description: 'A name and a workflow, validated before it is saved as the draft.' },
);
export type AgentCreateParams = Static<typeof AgentCreateParams>;

export const AgentUpdateParams = Type.Object(
  { name: Type.Optional(AgentName), workflow: Type.Optional(Workflow) },
  { title: 'AgentUpdateParams', description: 'Changes the draft; the published version runs until the next publish.' },
);
export type AgentUpdateParams = Static<typeof AgentUpdateParams>;

export const AgentListParams = ListQuery();
export type AgentListParams = Static<typeof AgentListParams>;

/** An agent: the draft workflow (card secrets masked) and the number of the version that runs. */
export const Agent = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('agent'),
    name: Type.String(),
    status: StringEnum(['draft', 'published'], { description: '`draft` until the first publish, then `published`.' }),
    version: Nullable(Type.Integer({ description: 'The published version that runs; null before the first publish.' })),
    has_unpublished_changes: Type.Boolean({
      description: 'True when the draft differs from the published version (or nothing is published).',
    }),
    workflow: Workflow,
    created_at: Type.Integer(),
    updated_at: Type.Integer(),
  },
  { title: 'Agent', additionalProperties: false },
);
export type Agent = Static<typeof Agent>;

/** The answer of the routes that create, read, change or publish an agent: `{agent}`. */
export const AgentEnvelope = Type.Object({ agent: Agent }, { title: 'AgentEnvelope', additionalProperties: false });
export type AgentEnvelope = Static<typeof AgentEnvelope>;

export const AgentsPage = ListPage(Agent);
export type AgentsPage = Static<typeof AgentsPage>;

export const AgentDeleted = Deleted('agent.deleted');
export type AgentDeleted = Static<typeof AgentDeleted>;

/** One published snapshot of an agent. */
export const AgentVersion = Type.Object(
  {
    id: Type.String({ description: '`<agent_id>@<version>`.' }),
    object: Type.Literal('agent.version'),
    agent_id: Type.String(),
    version: Type.Integer(),
    name: Type.String({ description: "The agent's name when this version was published." }),
    created_at: Type.Integer(),
  },
  { title: 'AgentVersion', additionalProperties: false },
);
export type AgentVersion = Static<typeof AgentVersion>;

/** One published version with the workflow it runs (card secrets masked). */
export const AgentVersionWithWorkflow = Type.Object(
  { ...AgentVersion.properties, workflow: Workflow },
  { title: 'AgentVersionWithWorkflow', additionalProperties: false },
);
export type AgentVersionWithWorkflow = Static<typeof AgentVersionWithWorkflow>;

/** `GET /v1/agents/{id}/versions/{version}`: `{version}`. */
export const AgentVersionEnvelope = Type.Object(
  { version: AgentVersionWithWorkflow },
  { title: 'AgentVersionEnvelope', additionalProperties: false },
);

export const AgentVersionListParams = ListQuery();
export type AgentVersionListParams = Static<typeof AgentVersionListParams>;

export const AgentVersionsPage = ListPage(AgentVersion);
export type AgentVersionsPage = Static<typeof AgentVersionsPage>;

/** The path of one version: the agent's id and the version number. */
export const AgentVersionPath = Type.Object({
  id: Type.String(),
  version: Type.String({ pattern: '^[0-9]+$', description: 'A version number.' }),
});
