import { InvalidRequestError } from '../errors';
import type { WorkflowGraph } from './workflow-graph';
import { WORKFLOW_LIMITS } from './workflow-limits';
import type { WebhookNode } from './workflow-types';

/**
 * The characters `JSON.stringify` writes for a string, quotes included, counted without building it:
 * `"` and `\\` and the short escapes take two, other control characters and lone surrogates six.
 * Anything else (an unfinished field) counts nothing.
 */
function jsonChars(value: unknown): number {
  if (typeof value !== 'string') return 0;
  let chars = value.length + 2;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x22 || code === 0x5c || code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) chars += 1;
    else if (code < 0x20) chars += 5;
    else if (code >= 0xd800 && code <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) i++;
      else chars += 5;
    }
  }
  return chars;
}

const jsonTexts = (values: unknown) => (Array.isArray(values) ? values.reduce((sum: number, value) => sum + jsonChars(value), 0) : 0);
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * JSON around one tool in an agent's preview: the definition's frame
 * (`{"type":"function","function":{"name":…,"description":…,"parameters":{"type":"object","properties":{…},"required":[…]}}},`)
 * and the punctuation of its `sources` entry.
 */
const TOOL_FRAME = 120;
/** The headings the description gives each part (`\n\nWHEN TO USE: `, `\n\nRESPONSE: `, the chaining lines). */
const HEADINGS = { whenToUse: 18, responseDescription: 14, dependsOn: 28, triggers: 36 } as const;
/** JSON around one parameter: `"name":{"type":"string","description":…,"items":{}},`, its `required` entry, the hint and example separators. */
const PARAMETER_FRAME = 64;

const present = (value: unknown) => (typeof value === 'string' || Array.isArray(value)) && value.length > 0;

/**
 * What one card adds to the tools of each agent node that sees it, in characters of JSON: per enabled
 * route, the text its tool definition carries (name, description, when to use, response, chaining
 * names, each parameter's name, description, how to obtain and example) and the JSON around it, plus
 * the card id and names its `sources` entry and a collision warning would carry; the card id for the
 * agent's `cards` list. Read from the card's fields in one pass, without compiling it; never below what
 * the preview lists for the card.
 */
export function cardWeight(card: WebhookNode): number {
  const id = jsonChars(card.id) + 1;
  let chars = id;
  const data: unknown = card.data;
  const routes = isRecord(data) && isRecord(data.config) && Array.isArray(data.config.routes) ? data.config.routes : [];
  // Each tool also carries the card id (its `sources` entry) and, in a collision warning, the card's name.
  const perTool = TOOL_FRAME + id + jsonChars(isRecord(data) ? data.name : undefined);
  for (const route of routes) {
    if (!isRecord(route) || route.enabled === false || !route.name) continue;
    // The name: the tool's, its `sources` key, and the route's own in a collision warning.
    chars += perTool + 3 * jsonChars(route.name) + jsonChars(route.description);
    chars += jsonChars(route.whenToUse) + jsonChars(route.responseDescription) + jsonTexts(route.dependsOn) + jsonTexts(route.triggers);
    if (present(route.whenToUse)) chars += HEADINGS.whenToUse;
    if (present(route.responseDescription)) chars += HEADINGS.responseDescription;
    if (present(route.dependsOn)) chars += HEADINGS.dependsOn;
    if (present(route.triggers)) chars += HEADINGS.triggers;
    if (!Array.isArray(route.parameters)) continue;
    for (const parameter of route.parameters) {
      if (!isRecord(parameter)) continue;
      chars += PARAMETER_FRAME + 2 * jsonChars(parameter.name) + jsonChars(parameter.description);
      chars += jsonChars(parameter.howToObtain) + jsonChars(parameter.example);
    }
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
export function checkSeenTools(graph: WorkflowGraph): void {
  const weights = new Map<WebhookNode, number>();
  let total = 0;
  let largest = { id: '', chars: 0 };
  for (const node of graph.workflow.nodes) {
    if (node.type !== 'agent') continue;
    let chars = 0;
    for (const card of graph.visibleCards(node)) {
      let weight = weights.get(card);
      if (weight === undefined) {
        weight = cardWeight(card);
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
