import type { StartVariable } from '../agents';
import { InvalidRequestError } from '../errors';
import { boundToolResult } from '../internal/tool-result';
import { MAX_TOOL_NAME_LENGTH, sanitizeToolName } from '../webhooks';
import type { McpAgents, PublishedAgent } from './sources';
import { type McpTool, type McpToolContext, textResult } from './types';

/** Published agents `/mcp` offers as tools at most (oldest first); the others are reached at `/v1/agents/{id}/mcp`. */
export const MAX_AGENT_TOOLS = 100;

/**
 * Tool names of published agents: `agent_` + the name sanitised as route names are, cut to 64
 * characters; a name taken by an older agent gets `_2`, `_3`… So a name stays with its agent while
 * newer agents come and go.
 */
export function agentToolNames(agents: readonly PublishedAgent[]): Map<string, PublishedAgent> {
  const named = new Map<string, PublishedAgent>();
  for (const agent of agents) {
    const base = `agent_${sanitizeToolName(agent.name)}`.slice(0, MAX_TOOL_NAME_LENGTH);
    let name = base;
    for (let n = 2; named.has(name); n++) name = `${base.slice(0, MAX_TOOL_NAME_LENGTH - `_${n}`.length)}_${n}`;
    named.set(name, agent);
  }
  return named;
}

/** The input of a run: `message` and the start node's variables, each a string, required as the start node says. */
function runInputSchema(variables: readonly StartVariable[]): McpTool['definition']['inputSchema'] {
  const properties: Record<string, object> = { message: { type: 'string', description: 'The message to the agent.' } };
  const required = ['message'];
  for (const variable of variables) {
    if (variable.name === 'message') continue;
    properties[variable.name] = { type: 'string', description: variable.description ?? `The run variable '${variable.name}'.` };
    if (variable.required === true) required.push(variable.name);
  }
  return { type: 'object', properties, required };
}

/**
 * A run of a published agent as a tool call: `message` plus the start variables in, the run's answer out.
 * Each tool the agent calls is told as an MCP progress notification; a failed run is an error result.
 * A start variable named `message` gets the message itself.
 */
export function runTool(
  agents: McpAgents,
  name: string,
  agent: PublishedAgent,
  variables: readonly StartVariable[],
  description: string,
): McpTool {
  return {
    definition: {
      name,
      title: agent.name,
      description,
      inputSchema: runInputSchema(variables),
      annotations: { title: agent.name, readOnlyHint: false, destructiveHint: false, openWorldHint: true },
    },
    call: async (args, context) => runAgent(agents, agent, variables, args, context),
  };
}

async function runAgent(
  agents: McpAgents,
  agent: PublishedAgent,
  variables: readonly StartVariable[],
  args: Record<string, unknown>,
  context: McpToolContext,
) {
  const message = args.message;
  if (typeof message !== 'string') throw new InvalidRequestError("Missing required argument: 'message' (a string).", 'message');
  const values: Record<string, unknown> = {};
  for (const variable of variables) {
    const value = variable.name === 'message' ? message : args[variable.name];
    if (value !== undefined) values[variable.name] = value;
  }
  const events = await agents.run(context.accountId, agent.id, { message, variables: values }, context.signal);
  for await (const event of events) {
    if (event.type === 'tool_use') await context.progress(`${agent.name} calls ${event.tool}.`);
    if (event.type === 'run.completed') return textResult(boundToolResult(event.output));
    if (event.type === 'run.failed') return textResult(`Error: the run of ${agent.name} failed: ${event.error}`, true);
  }
  return textResult(`Error: the run of ${agent.name} ended without an answer.`, true);
}

/** One tool per published agent of the account (`agent_<name>`), at most `MAX_AGENT_TOOLS`. */
export async function agentToolsByName(agents: McpAgents, accountId: string): Promise<Map<string, PublishedAgent>> {
  return agentToolNames((await agents.listPublished(accountId)).slice(0, MAX_AGENT_TOOLS));
}

/** The tool of one published agent, with its version's start variables. */
export async function agentRunTool(agents: McpAgents, accountId: string, name: string, agent: PublishedAgent): Promise<McpTool> {
  const variables = await agents.startVariables(accountId, agent.id, agent.version);
  return runTool(
    agents,
    name,
    agent,
    variables,
    `Runs the published agent "${agent.name}" (version ${agent.version}) and answers its reply.`,
  );
}
