import type { FathomError } from '../errors';
import type { Logger } from '../internal/logger';
import type { ChatToolDefinition } from '../models/types';
import type { AgentWebhooks } from './agent-deps';
import { agentTools } from './agent-tools';
import type { BuiltInTool } from './built-in-tools';
import { validateWorkflow } from './validate-workflow';
import { visibleCards } from './visible-cards';
import type { AgentNode, Workflow } from './workflow-types';

/** What one agent node of a workflow would offer its model. */
export interface AgentToolsPreview {
  node_id: string;
  name: string;
  model: string;
  /** The definitions the model receives, in the order it receives them (built-ins first). */
  tools: ChatToolDefinition[];
  /** Tool name -> where it comes from: `built-in`, or the id of the Webhook card node. */
  sources: Record<string, string>;
  /** Ids of the cards the node sees (its slots and those received through a pipeline). */
  cards: string[];
  /** Name collisions and overwrites, as the run would log them. */
  warnings: string[];
}

export interface WorkflowToolsPreview {
  object: 'agent.tools_preview';
  agents: AgentToolsPreview[];
  /** The first validation failure of the workflow as a save would report it, or null when it would save. */
  validation_error: { message: string; param: string | null; code: string } | null;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * Compiles a (possibly unfinished) workflow the way a run does: for each agent node, the built-ins
 * and the routes of the cards it sees, through the same compiler and `tools_filter`. Used by the
 * console's live tool preview; nothing is saved or called.
 */
export function previewWorkflowTools(workflow: unknown, webhooks: AgentWebhooks, builtIns: BuiltInTool[]): WorkflowToolsPreview {
  let validation_error: WorkflowToolsPreview['validation_error'] = null;
  try {
    validateWorkflow(workflow);
  } catch (error) {
    const failure = error as FathomError;
    validation_error = { message: failure.message, param: failure.param ?? null, code: failure.code ?? 'invalid_workflow' };
  }
  const graph: Workflow = {
    nodes: isRecord(workflow) && Array.isArray(workflow.nodes) ? workflow.nodes.filter(isRecord) : [],
    edges: isRecord(workflow) && Array.isArray(workflow.edges) ? workflow.edges.filter(isRecord) : [],
  } as unknown as Workflow;
  const agents = graph.nodes
    .filter((node): node is AgentNode => node.type === 'agent' && typeof node.id === 'string' && isRecord(node.data))
    .map((node) => {
      const warnings: string[] = [];
      const log: Logger = {
        info() {},
        error() {},
        warn: (message, details) => {
          const collisions = Array.isArray(details)
            ? `: ${details.map((c: { name: string; overwritten: string; by: string }) => `${c.name} (${c.overwritten} overwritten by ${c.by})`).join(', ')}`
            : '';
          warnings.push(`${message.replace(/^agent preview: /, '')}${collisions}`);
        },
      };
      const cards = visibleCards(graph, node).filter((card) => isRecord(card.data));
      const sources: Record<string, string> = {};
      let definitions: ChatToolDefinition[] = [];
      try {
        const tools = agentTools({ agentId: 'preview', node, cards, builtIns, webhooks, accountId: 'preview', log });
        for (const tool of builtIns) sources[tool.definition.function.name] = 'built-in';
        for (const card of cards) {
          for (const compiled of webhooks.compile([card.data]).tools) sources[compiled.name] = card.id;
        }
        definitions = [...tools.values()].map((tool) => tool.definition);
      } catch (error) {
        // An unfinished card (e.g. `routes` not a list yet) cannot compile; the validation error says why.
        warnings.push(`the tools could not be compiled: ${(error as Error).message}`);
      }
      return {
        node_id: node.id,
        name: typeof node.data.name === 'string' ? node.data.name : '',
        model: typeof node.data.model === 'string' ? node.data.model : '',
        tools: definitions,
        sources: Object.fromEntries(definitions.map((definition) => [definition.function.name, sources[definition.function.name]!])),
        cards: cards.map((card) => card.id),
        warnings,
      };
    });
  return { object: 'agent.tools_preview', agents, validation_error };
}
