import type { FathomError } from '../errors';
import type { Logger } from '../internal/logger';
import type { ChatToolDefinition } from '../models/types';
import type { AgentWebhooks } from './agent-deps';
import { type AgentTool, agentTools } from './agent-tools';
import type { BuiltInTool } from './built-in-tools';
import { checkSeenTools, compiledCards } from './seen-tools';
import { checkWorkflow } from './validate-workflow';
import { WorkflowGraph } from './workflow-graph';
import { checkWorkflowLimits } from './workflow-limits';
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

/** `items` itself when every element is an object (a workflow that passes the schema), else its objects. */
const objectsOf = (items: unknown): Record<string, unknown>[] =>
  Array.isArray(items) ? (items.every(isRecord) ? items : items.filter(isRecord)) : [];

/**
 * Compiles a (possibly unfinished) workflow the way a run does: for each agent node, the built-ins
 * and the routes of the cards it sees, through the same compiler and `tools_filter`. Used by the
 * console's live tool preview; nothing is saved or called.
 *
 * One graph and one compilation per card serve validation and every agent node, so the work grows
 * with the workflow plus what the answer lists. A workflow past `WORKFLOW_LIMITS` (counts, or the tools
 * its agents see together) is refused with a 400 before any of that work, like a save.
 */
export function previewWorkflowTools(workflow: unknown, webhooks: AgentWebhooks, builtIns: BuiltInTool[]): WorkflowToolsPreview {
  checkWorkflowLimits(workflow);
  const view = {
    nodes: objectsOf(isRecord(workflow) ? workflow.nodes : undefined),
    edges: objectsOf(isRecord(workflow) ? workflow.edges : undefined),
  } as unknown as Workflow;
  const graph = new WorkflowGraph(view);
  const compile = compiledCards((cards) => webhooks.compile(cards));
  checkSeenTools(graph, compile);
  let validation_error: WorkflowToolsPreview['validation_error'] = null;
  try {
    checkWorkflow(workflow, { compile, graph });
  } catch (error) {
    const failure = error as FathomError;
    validation_error = { message: failure.message, param: failure.param ?? null, code: failure.code ?? 'invalid_workflow' };
  }
  const agents = view.nodes
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
      const cards = graph.visibleCards(node).filter((card) => isRecord(card.data));
      let tools: AgentTool[] = [];
      try {
        tools = [...agentTools({ agentId: 'preview', node, cards, builtIns, webhooks, accountId: 'preview', log, compile }).values()];
      } catch (error) {
        // An unfinished card (e.g. `routes` not a list yet) cannot compile; the validation error says why.
        warnings.push(`the tools could not be compiled: ${(error as Error).message}`);
      }
      return {
        node_id: node.id,
        name: typeof node.data.name === 'string' ? node.data.name : '',
        model: typeof node.data.model === 'string' ? node.data.model : '',
        tools: tools.map((tool) => tool.definition),
        sources: Object.fromEntries(tools.map((tool) => [tool.definition.function.name, tool.source])),
        cards: cards.map((card) => card.id),
        warnings,
      };
    });
  return { object: 'agent.tools_preview', agents, validation_error };
}
