import type { Logger } from '../internal/logger';
import { yieldToEventLoop } from '../internal/time-slices';
import type { ChatAdapterContract } from '../models/types';
import { inSpanSteps } from '../observability/tracing';
import type { AgentWebhooks } from './agent-deps';
import type { AgentRunEvent, NewAgentRunStep } from './agent-objects';
import { agentTools, compiledCards } from './agent-tools';
import type { BuiltInTool } from './built-in-tools';
import { type AgentMcp, listMcpCards, type McpCardListing, unavailableText } from './mcp-card-tools';
import { renderVariables } from './render-variables';
import { runAgentNode } from './run-agent-node';
import { WorkflowGraph } from './workflow-graph';
import type { McpNode, StartNode, Workflow } from './workflow-types';

export interface RunWorkflowOptions {
  agentId: string;
  runId: string;
  accountId: string;
  version: number;
  /** The published workflow (already validated when it was saved). */
  workflow: Workflow;
  message: string;
  variables: Record<string, unknown>;
  stream: boolean;
  signal: AbortSignal;
  chat: ChatAdapterContract;
  webhooks: AgentWebhooks;
  /** Lists and calls the tools of MCP cards; without it an MCP card's tools are unavailable. */
  mcp?: AgentMcp;
  builtIns: BuiltInTool[];
  maxToolRounds: number;
  log: Logger;
  /** Stores a step as soon as it is known; a rejection (the run was taken from this process) stops the run. */
  record(step: NewAgentRunStep): Promise<void> | void;
}

/**
 * Runs a published workflow from start to end along its edges. Each agent node gets the outputs of
 * its flow predecessors as input (the user message for those after start); the run's output is what
 * reaches the end node. Yields `run.started`, the nodes' parts, then exactly one of
 * `run.completed` / `run.failed` (never throws, except when the signal aborts).
 */
export async function* runWorkflow(options: RunWorkflowOptions): AsyncGenerator<AgentRunEvent> {
  const { workflow, variables, runId } = options;
  yield { type: 'run.started', run: { id: runId, agent_id: options.agentId, version: options.version, status: 'in_progress' } };
  try {
    // One graph and one compilation per card serve every agent node of the run.
    const graph = new WorkflowGraph(workflow);
    const compile = compiledCards((cards) => options.webhooks.compile(cards));
    // Each MCP card is listed once per run, when the first agent node that sees it starts.
    const listings = new Map<McpNode, McpCardListing>();
    const start = workflow.nodes.find((node): node is StartNode => node.type === 'start')!;
    const declared = new Set((start.data.variables ?? []).map((variable) => variable.name));
    const message = renderVariables(options.message, variables, declared);
    const outputs = new Map<string, string>([[start.id, message]]);
    const inputOf = (id: string) =>
      (graph.previous.get(id) ?? [])
        .filter((source) => outputs.has(source))
        .map((source) => outputs.get(source)!)
        .join('\n\n');
    let output = '';
    for (const id of graph.executionOrder(start.id).order) {
      const node = graph.nodes.get(id)!;
      if (node.type === 'agent') {
        const cards = graph.visibleCards(node);
        const unlisted = cards.filter((card): card is McpNode => card.type === 'mcp' && !listings.has(card));
        if (unlisted.length > 0) {
          const listed = await listMcpCards(unlisted, options.mcp, { accountId: options.accountId, signal: options.signal });
          for (const [card, listing] of listed) listings.set(card, listing);
        }
        // A card whose server could not be reached: the node runs without its tools, and the run says so.
        for (const card of cards) {
          if (card.type !== 'mcp') continue;
          const listing = listings.get(card);
          if (!listing || !('error' in listing)) continue;
          const error = unavailableText(card, listing.error);
          options.log.warn(`agent ${options.agentId}: ${error}`);
          yield { type: 'tools_unavailable', node_id: node.id, card_id: card.id, error };
          await options.record({ type: 'tools_unavailable', node_id: node.id, card_id: card.id, error });
        }
        const tools = agentTools({
          agentId: options.agentId,
          node,
          cards,
          compile,
          mcp: options.mcp,
          mcpListings: listings,
          builtIns: options.builtIns,
          webhooks: options.webhooks,
          accountId: options.accountId,
          log: options.log,
        });
        // Building a large node's tools and serializing its model request are two steps, not one.
        await yieldToEventLoop();
        // One span per node (GenAI `invoke_agent`); its model and tool calls are its children.
        const nodeSpan = {
          'fathom.agent.node.id': node.id,
          'fathom.agent.node.type': node.type,
          'fathom.agent_run_id': runId,
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': options.agentId,
          'gen_ai.agent.name': node.data.name,
          'gen_ai.request.model': node.data.model,
        };
        const answer = yield* inSpanSteps('fathom.agent.node', nodeSpan, () =>
          runAgentNode({
            chat: options.chat,
            nodeId: node.id,
            model: node.data.model,
            systemPrompt: renderVariables(node.data.system_prompt ?? '', variables, declared),
            input: inputOf(node.id),
            tools,
            stream: options.stream,
            maxToolRounds: options.maxToolRounds,
            signal: options.signal,
            accountId: options.accountId,
            record: options.record,
          }),
        );
        outputs.set(node.id, answer);
      } else if (node.type === 'end') {
        output = inputOf(node.id);
        break;
      }
    }
    yield { type: 'run.completed', run_id: runId, output };
  } catch (error) {
    if (options.signal.aborted) throw error;
    yield { type: 'run.failed', run_id: runId, error: (error as Error).message || String(error) };
  }
}
