import type { FathomError } from '../errors';
import type { Logger } from '../internal/logger';
import { timeSlices, yieldToEventLoop } from '../internal/time-slices';
import type { ChatToolDefinition } from '../models/types';
import type { CompiledWebhookTool } from '../webhooks';
import type { AgentWebhooks } from './agent-deps';
import { type AgentTool, agentTools, type CompileCard, compiledCards } from './agent-tools';
import type { BuiltInTool } from './built-in-tools';
import { checkSeenTools } from './seen-tools';
import { draftShapeError, validateWorkflow } from './validate-workflow';
import type { AgentToolsPreview, AgentToolsPreviewParams, WorkflowToolsPreview } from './wire/tools-preview';
import { WorkflowGraph } from './workflow-graph';
import { checkWorkflowLimits } from './workflow-limits';
import type { AgentNode, WebhookNode, Workflow, WorkflowDraft } from './workflow-types';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/** `items` itself when every element is an object (a workflow that passes the schema), else its objects. */
const objectsOf = (items: unknown): Record<string, unknown>[] =>
  Array.isArray(items) ? (items.every(isRecord) ? items : items.filter(isRecord)) : [];

interface PreviewContext {
  graph: WorkflowGraph;
  webhooks: AgentWebhooks;
  builtIns: BuiltInTool[];
  compile: CompileCard;
  define: (tool: CompiledWebhookTool) => ChatToolDefinition;
}

/** One agent node's entry: its tools as a run would build them, and the collisions a run would log. */
function previewAgent(node: AgentNode, { graph, webhooks, builtIns, compile, define }: PreviewContext): AgentToolsPreview {
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
    tools = [...agentTools({ agentId: 'preview', node, cards, builtIns, webhooks, accountId: 'preview', log, compile, define }).values()];
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
}

/**
 * Compiles a (possibly unfinished) workflow the way a run does: for each agent node, the built-ins
 * and the routes of the cards it sees, through the same compiler and `tools_filter`. Used by the
 * console's live tool preview; nothing is saved or called.
 *
 * One graph, one compilation per card and one definition per tool serve validation and every agent
 * node, so the work grows with the workflow plus what the answer lists; a workflow past
 * `WORKFLOW_LIMITS` (counts, or the tools its agents see together) is refused with a 400 before any of
 * that work, like a save. The work is done a card, then an agent node, at a time, giving the event loop
 * a turn every few ms, so the largest allowed preview never holds the server for long.
 */
export async function previewWorkflowTools(
  workflow: WorkflowDraft,
  webhooks: AgentWebhooks,
  builtIns: BuiltInTool[],
): Promise<WorkflowToolsPreview> {
  checkWorkflowLimits(workflow);
  const pause = timeSlices();
  // The body was parsed in this turn of the event loop; the checks below take the next one.
  await yieldToEventLoop();
  // The workflow's declaration, as a save checks it: counts past the limits are a 400 here too; any
  // other issue is what the preview reports.
  const shapeError = draftShapeError(workflow);
  await pause();
  const view = { nodes: objectsOf(workflow.nodes), edges: objectsOf(workflow.edges) } as unknown as Workflow;
  const graph = new WorkflowGraph(view);
  checkSeenTools(graph);
  await pause();
  let validation_error: WorkflowToolsPreview['validation_error'] = null;
  try {
    if (shapeError) throw shapeError;
    validateWorkflow(workflow as Workflow, graph);
  } catch (error) {
    const failure = error as FathomError;
    validation_error = { message: failure.message, param: failure.param ?? null, code: failure.code ?? 'invalid_workflow' };
  }
  await pause();
  const compile = compiledCards((cards) => webhooks.compile(cards));
  // Agents that see the same card list the same definitions: each is made once (the answer is serialized as is).
  const definitions = new Map<CompiledWebhookTool, ChatToolDefinition>();
  const define = (tool: CompiledWebhookTool) => {
    let definition = definitions.get(tool);
    if (!definition) {
      definition = webhooks.toolDefinition(tool);
      definitions.set(tool, definition);
    }
    return definition;
  };
  const agentNodes = view.nodes.filter(
    (node): node is AgentNode => node.type === 'agent' && typeof node.id === 'string' && isRecord(node.data),
  );
  // Every card some agent sees, compiled with its definitions made, one card per step.
  const prepared = new Set<WebhookNode>();
  for (const node of agentNodes) {
    for (const card of graph.visibleCards(node)) {
      if (prepared.has(card) || !isRecord(card.data)) continue;
      prepared.add(card);
      try {
        for (const tool of compile(card).tools) define(tool);
      } catch {
        // Reported on each agent that sees the card (below).
      }
      await pause();
    }
  }
  const context: PreviewContext = { graph, webhooks, builtIns, compile, define };
  const agents: AgentToolsPreview[] = [];
  for (const node of agentNodes) {
    agents.push(previewAgent(node, context));
    await pause();
  }
  return { object: 'agent.tools_preview', agents, validation_error };
}

/**
 * `fathom.agents.tools`: the live tool preview of a workflow (saved or not, finished or not), as the
 * console's agent editor shows it.
 */
export class WorkflowTools {
  readonly #webhooks: AgentWebhooks;
  readonly #builtIns: BuiltInTool[];

  constructor(webhooks: AgentWebhooks, builtIns: BuiltInTool[]) {
    this.#webhooks = webhooks;
    this.#builtIns = builtIns;
  }

  /**
   * The tools each agent node would give its model, and whether the workflow would pass validation
   * (`validation_error`). Masked secrets are never compiled into definitions.
   */
  preview(params: AgentToolsPreviewParams): Promise<WorkflowToolsPreview> {
    return previewWorkflowTools(params.workflow, this.#webhooks, this.#builtIns);
  }
}
