import { InvalidRequestError } from '../errors';
import type { CompileResult, WebhookCard } from '../webhooks';
import type { WorkflowGraph } from './workflow-graph';
import { WORKFLOW_LIMITS } from './workflow-limits';
import type { WebhookNode } from './workflow-types';

/** A card node compiled into its tools (the same answer for the same node within one request). */
export type CompileCard = (card: WebhookNode) => CompileResult;

/**
 * Compiles each card node once however many agent nodes see it: validation, the tool preview and a
 * run ask for a card once per agent that sees it. A card that cannot compile (an unfinished draft)
 * throws the same error each time.
 */
export function compiledCards(compile: (cards: WebhookCard[]) => CompileResult): CompileCard {
  const done = new Map<WebhookNode, { result: CompileResult } | { error: unknown }>();
  return (card) => {
    let entry = done.get(card);
    if (!entry) {
      try {
        entry = { result: compile([card.data]) };
      } catch (error) {
        entry = { error };
      }
      done.set(card, entry);
    }
    if ('error' in entry) throw entry.error;
    return entry.result;
  };
}

const size = (value: unknown) => (JSON.stringify(value) ?? '').length;

/**
 * What one card adds to the tools of each agent node that sees it, in characters: its tool definitions
 * as JSON, and per tool the card id and names its `sources` entry and a collision warning would carry;
 * the card's id for the agent's `cards` list. A card that cannot compile adds its id only.
 */
export function cardWeight(card: WebhookNode, compile: CompileCard): number {
  const id = String(card.id).length + 4;
  let tools: CompileResult['tools'];
  try {
    tools = compile(card).tools;
  } catch {
    return id;
  }
  let chars = id;
  for (const tool of tools) {
    // `{"type":"function","function":{"name":…,"description":…,"parameters":…}}` and a `sources` entry.
    chars += 64 + size(tool.name) + size(tool.description) + size(tool.parameters) + id;
    chars += String(card.data?.name).length + String(tool.routeName).length;
  }
  return chars;
}

/**
 * The characters of tool definitions the agent nodes of a workflow see, summed over the agent nodes
 * (`WORKFLOW_LIMITS.seenToolChars`): each agent counts every card it sees, received through a pipeline
 * included, so a card at the head of a chain of twenty agents counts twenty times. This is what the
 * tool preview answers and what a run sends its models, and it grows with agents times cards; the
 * counts alone (nodes, routes) do not bound it. Throws 400 `workflow_too_large` past the limit.
 */
export function checkSeenTools(graph: WorkflowGraph, compile: CompileCard): void {
  const weights = new Map<WebhookNode, number>();
  let total = 0;
  let largest = { id: '', chars: 0 };
  for (const node of graph.workflow.nodes) {
    if (node.type !== 'agent') continue;
    let chars = 0;
    for (const card of graph.visibleCards(node)) {
      let weight = weights.get(card);
      if (weight === undefined) {
        weight = cardWeight(card, compile);
        weights.set(card, weight);
      }
      chars += weight;
    }
    total += chars;
    if (chars > largest.chars) largest = { id: String(node.id), chars };
  }
  if (total <= WORKFLOW_LIMITS.seenToolChars) return;
  throw new InvalidRequestError(
    `The agent nodes of this workflow see ${total.toLocaleString('en-US')} characters of tool definitions together, more than the ` +
      `${WORKFLOW_LIMITS.seenToolChars.toLocaleString('en-US')} allowed: each agent node counts the tools of every card it sees, ` +
      `those received through a pipeline included (agent '${largest.id}' sees ${largest.chars.toLocaleString('en-US')}). ` +
      'Wire large cards to fewer agents (a card at the head of a pipeline reaches every agent after it), or shorten their routes.',
    'workflow.nodes',
    'workflow_too_large',
  );
}
