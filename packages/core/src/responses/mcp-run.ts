import { InvalidRequestError } from '../errors';
import { newId } from '../internal/ids';
import {
  connectMcpServer,
  egressRefusal,
  McpClientError,
  type McpConnection,
  type McpFetch,
  type McpServerTarget,
  operatorMcpServer,
} from '../mcp';
import type { McpServerConfig } from '../config/mcp-servers';
import type { ChatToolCall, ChatToolChoice, ChatToolDefinition } from '../models/types';
import type { ToolAction } from '../turns';
import type { StoredItem } from './items';
import { checkApprovals } from './mcp-approvals';
import { isToolAllowed, type McpToolChoice, type McpToolSettings, needsApproval } from './mcp-request';

/** What the Responses `mcp` tool needs: the egress guard's fetch and the operator's servers. */
export interface McpDeps {
  fetch: McpFetch;
  servers: Readonly<Record<string, McpServerConfig>>;
  /** Connect + `tools/list` deadline, ms; default 10000. */
  listTimeoutMs?: number;
  /** One `tools/call` deadline, ms; default 60000. */
  callTimeoutMs?: number;
  /** Tools kept per server; default 128. */
  maxTools?: number;
}

/** MCP tool calls one response makes at most (a model asking for more is told the limit is reached). */
export const MAX_MCP_CALLS = 20;

/** A tool as an `mcp_list_tools` item lists it (OpenAI's `McpListTools.Tool`). */
interface ListedTool {
  name: string;
  description?: string | null;
  input_schema: unknown;
  annotations?: Record<string, unknown> | null;
}

interface Server {
  settings: McpToolSettings;
  /** The tools the model may see (allowed_tools applied), or the listing error. */
  tools: ListedTool[];
  /** A new `mcp_list_tools` item of this response (undefined when an earlier one was reused). */
  listing?: StoredItem;
  connection?: Promise<McpConnection>;
}

/** One tool the model may call, under the function name it sees. */
interface Route {
  server: Server;
  tool: ListedTool;
}

/** An approved call to run before the first model turn. */
interface Approved {
  request: StoredItem;
  server: Server;
}

type Emit = (type: string, fields: Record<string, unknown>) => { type: string; sequence_number: number; [key: string]: unknown };

function sanitize(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';
}

function isReadOnly(tool: ListedTool): boolean {
  return tool.annotations?.readOnlyHint === true;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const parsed = JSON.parse(text || '{}');
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The error of a failed call in OpenAI's `McpToolCallError` shape (never a header value). */
function callError(error: unknown): Record<string, unknown> {
  const refusal = egressRefusal(error);
  if (refusal) return { type: 'http_error', code: refusal.status, message: refusal.message };
  if (error instanceof McpClientError) {
    const protocol = /tools\/call [^:]+ failed: (.*)$/.exec(error.message);
    if (protocol && error.code === 'mcp_server_error' && !/fetch failed|ECONN|socket/i.test(protocol[1]!)) {
      return { type: 'mcp_protocol_error', code: -32603, message: protocol[1] };
    }
    return { type: 'http_error', code: error.status, message: error.message };
  }
  return { type: 'http_error', code: 500, message: 'The MCP call failed.' };
}

/**
 * The `mcp` tools of one response: which servers are listed (once per server per conversation: an
 * `mcp_list_tools` item already in the context is reused), the functions the model sees, approvals
 * answered by the client, and the calls. Approval decisions come only from the request's rules and the
 * client's `mcp_approval_response` items, never from a server's output.
 */
export class McpRun {
  readonly #deps: McpDeps;
  readonly #servers: Server[] = [];
  readonly #routes = new Map<string, Route>();
  readonly #approved: Approved[] = [];
  readonly #signal?: AbortSignal;
  #callsLeft: number;
  #choice?: McpToolChoice;

  private constructor(deps: McpDeps, maxCalls: number, signal?: AbortSignal) {
    this.#deps = deps;
    this.#callsLeft = maxCalls;
    this.#signal = signal;
  }

  /**
   * Checks the request's `mcp_approval_response` items against the context (400 naming
   * `input[i].approval_request_id` for an unknown or already-answered request), then lists the servers
   * not listed yet in the context. Nothing is emitted: `emitStart` does it once the response has started.
   */
  static async prepare(
    deps: McpDeps | undefined,
    settings: McpToolSettings[],
    context: { items: readonly StoredItem[]; firstInput: number },
    options: { maxCalls: number; signal?: AbortSignal; reservedNames: string[]; toolChoice?: McpToolChoice },
  ): Promise<McpRun | undefined> {
    const answers = checkApprovals(settings, context.items, context.firstInput);
    if (!settings.length) return undefined;
    if (!deps) throw new InvalidRequestError(`The mcp tool is not available on this installation.`, settings[0]!.at);
    const run = new McpRun(deps, options.maxCalls, options.signal);
    await Promise.all(settings.map((each) => run.#addServer(each, context.items)));
    run.#declare(options.reservedNames);
    if (options.toolChoice) {
      try {
        run.#checkChoice(options.toolChoice);
      } catch (error) {
        await run.close();
        throw error;
      }
    }
    for (const { request } of answers.filter((answer) => answer.approve)) {
      const server = run.#servers.find((each) => each.settings.serverLabel === request.server_label)!;
      run.#approved.push({ request, server });
    }
    return run;
  }

  /** The functions the model sees for the servers' tools (none once the calls per response are used up). */
  get functions(): ChatToolDefinition[] {
    if (this.#callsLeft <= 0) return [];
    return [...this.#routes.entries()].map(([name, { server, tool }]) => ({
      type: 'function',
      function: {
        name,
        description:
          [server.settings.serverDescription, tool.description].filter(Boolean).join(' - ').slice(0, 1024) ||
          `${tool.name} (MCP server ${server.settings.serverLabel})`,
        parameters: (tool.input_schema && typeof tool.input_schema === 'object'
          ? tool.input_schema
          : { type: 'object', properties: {} }) as Record<string, unknown>,
      },
    }));
  }

  /**
   * What `tool_choice: {type: "mcp"}` makes of the first model turn: a named tool becomes a function choice
   * under the name the model sees; a server alone becomes `required` with only that server's tools.
   * Undefined without such a choice, or once no call is left.
   */
  get forced(): { choice: ChatToolChoice; tools?: ChatToolDefinition[] } | undefined {
    const choice = this.#choice;
    if (!choice) return undefined;
    const names = [...this.#routes.entries()]
      .filter(([, route]) => route.server.settings.serverLabel === choice.serverLabel && (!choice.name || route.tool.name === choice.name))
      .map(([name]) => name);
    const tools = this.functions.filter((tool) => names.includes(tool.function.name));
    if (!tools.length) return undefined;
    return choice.name ? { choice: { type: 'function', function: { name: names[0]! } } } : { choice: 'required', tools };
  }

  /** Whether a function name the model called is one of the servers' tools. */
  owns(name: string): boolean {
    return this.#routes.has(name);
  }

  /** The listing items (new ones), then the approved calls: their events, and the tool messages of the calls. */
  async *emitStart(emit: Emit, output: StoredItem[]): AsyncGenerator<ReturnType<Emit>, ChatToolCallResult[]> {
    for (const server of this.#servers) {
      const item = server.listing;
      if (!item) continue;
      output.push(item);
      const index = output.length - 1;
      yield emit('response.output_item.added', { output_index: index, item: { ...item, tools: [] } });
      yield emit('response.mcp_list_tools.in_progress', { item_id: item.id, output_index: index });
      yield emit(item.error ? 'response.mcp_list_tools.failed' : 'response.mcp_list_tools.completed', {
        item_id: item.id,
        output_index: index,
      });
      yield emit('response.output_item.done', { output_index: index, item });
    }
    const results: ChatToolCallResult[] = [];
    for (const { request, server } of this.#approved) {
      const tool = server.tools.find((each) => each.name === request.name) ?? { name: String(request.name), input_schema: {} };
      const result = yield* this.#call(emit, output, server, tool, String(request.arguments ?? ''), request.id);
      results.push({
        call: { id: request.id, type: 'function', function: { name: String(request.name), arguments: String(request.arguments ?? '') } },
        content: result,
      });
    }
    return results;
  }

  /**
   * What the tool loop does with the model's call of an MCP tool: one needing approval becomes an
   * `mcp_approval_request` item (the response then ends); the others run (at most the calls left), each
   * answered to the model.
   */
  action(emit: Emit, output: StoredItem[], call: ChatToolCall): ToolAction<ReturnType<Emit>> {
    const { server, tool } = this.#routes.get(call.function.name)!;
    if (needsApproval(server.settings, tool.name, isReadOnly(tool))) {
      return {
        type: 'wait',
        announce: async function* () {
          const item: StoredItem = {
            id: newId('mcpr_'),
            type: 'mcp_approval_request',
            server_label: server.settings.serverLabel,
            name: tool.name,
            arguments: call.function.arguments,
          };
          output.push(item);
          const index = output.length - 1;
          yield emit('response.output_item.added', { output_index: index, item });
          yield emit('response.output_item.done', { output_index: index, item });
        },
      };
    }
    const run = async function* (this: McpRun): AsyncGenerator<ReturnType<Emit>, string> {
      if (this.#callsLeft <= 0) return 'Not called: this response reached its limit of MCP tool calls. Answer with what you have.';
      return yield* this.#call(emit, output, server, tool, call.function.arguments);
    };
    return { type: 'run', run: () => run.call(this) };
  }

  async close(): Promise<void> {
    await Promise.all(this.#servers.map(async (server) => (await server.connection?.catch(() => undefined))?.close()));
  }

  async *#call(
    emit: Emit,
    output: StoredItem[],
    server: Server,
    tool: ListedTool,
    args: string,
    approvalRequestId?: string,
  ): AsyncGenerator<ReturnType<Emit>, string> {
    this.#callsLeft--;
    const item: StoredItem = {
      id: newId('mcp_'),
      type: 'mcp_call',
      status: 'in_progress',
      server_label: server.settings.serverLabel,
      name: tool.name,
      arguments: args,
      output: null,
      error: null,
      approval_request_id: approvalRequestId ?? null,
    };
    output.push(item);
    const index = output.length - 1;
    yield emit('response.output_item.added', { output_index: index, item: { ...item, arguments: '' } });
    yield emit('response.mcp_call_arguments.delta', { item_id: item.id, output_index: index, delta: args });
    yield emit('response.mcp_call_arguments.done', { item_id: item.id, output_index: index, arguments: args });
    yield emit('response.mcp_call.in_progress', { item_id: item.id, output_index: index });
    let forModel: string;
    try {
      const connection = await this.#connect(server);
      const outcome = await connection.callTool(tool.name, parseArguments(args), {
        timeoutMs: this.#deps.callTimeoutMs,
        signal: this.#signal,
      });
      if (outcome.isError) {
        item.status = 'failed';
        item.error = { type: 'mcp_tool_execution_error', content: [{ type: 'text', text: outcome.text }] };
        forModel = `Error: ${outcome.text}`;
      } else {
        item.status = 'completed';
        item.output = outcome.text;
        forModel = outcome.text;
      }
    } catch (error) {
      if (this.#signal?.aborted) throw error;
      item.status = 'failed';
      item.error = callError(error);
      forModel = `Error: ${(item.error as { message: string }).message}`;
    }
    yield emit(item.status === 'completed' ? 'response.mcp_call.completed' : 'response.mcp_call.failed', {
      item_id: item.id,
      output_index: index,
    });
    yield emit('response.output_item.done', { output_index: index, item });
    return forModel;
  }

  #target(settings: McpToolSettings): McpServerTarget {
    if (settings.serverUrl) return { url: settings.serverUrl, headers: settings.headers };
    const configured = operatorMcpServer(this.#deps.servers, settings.serverLabel)!;
    if ('url' in configured) return { url: configured.url, headers: { ...(configured.headers ?? {}), ...settings.headers } };
    return configured;
  }

  #connect(server: Server): Promise<McpConnection> {
    server.connection ??= connectMcpServer(this.#target(server.settings), {
      fetch: this.#deps.fetch,
      timeoutMs: this.#deps.listTimeoutMs,
      signal: this.#signal,
    });
    return server.connection;
  }

  async #addServer(settings: McpToolSettings, items: readonly StoredItem[]): Promise<void> {
    const server: Server = { settings, tools: [] };
    this.#servers.push(server);
    const earlier = [...items]
      .reverse()
      .find((item) => item.type === 'mcp_list_tools' && item.server_label === settings.serverLabel && !item.error);
    let listed: ListedTool[];
    if (earlier) {
      listed = (Array.isArray(earlier.tools) ? earlier.tools : []) as ListedTool[];
    } else {
      const item: StoredItem = { id: newId('mcpl_'), type: 'mcp_list_tools', server_label: settings.serverLabel, tools: [], error: null };
      server.listing = item;
      try {
        const connection = await this.#connect(server);
        const { tools } = await connection.listTools({
          timeoutMs: this.#deps.listTimeoutMs,
          maxTools: this.#deps.maxTools,
          signal: this.#signal,
        });
        item.tools = tools.map((tool) => ({
          name: tool.name,
          description: tool.description ?? null,
          input_schema: tool.inputSchema,
          annotations: tool.annotations ?? null,
        }));
      } catch (error) {
        if (this.#signal?.aborted) throw error;
        item.error = `Error: ${(error as Error).message}`;
      }
      listed = item.tools as ListedTool[];
    }
    server.tools = listed.filter((tool) => isToolAllowed(settings, tool.name, isReadOnly(tool)));
  }

  /** `tool_choice: {type: "mcp"}` names a server with tools the model may call, and a tool it has (400 naming the field). */
  #checkChoice(choice: McpToolChoice): void {
    const server = this.#servers.find((each) => each.settings.serverLabel === choice.serverLabel)!;
    const failed = server.listing?.error ? ` (listing its tools failed: ${String(server.listing.error)})` : '';
    if (choice.name !== undefined && !server.tools.some((tool) => tool.name === choice.name)) {
      throw new InvalidRequestError(
        `Invalid 'tool_choice.name': MCP server '${choice.serverLabel}' has no tool '${choice.name}' the request allows${failed}.`,
        'tool_choice.name',
      );
    }
    if (!server.tools.length) {
      throw new InvalidRequestError(
        `Invalid 'tool_choice.server_label': MCP server '${choice.serverLabel}' has no tools the request allows${failed}.`,
        'tool_choice.server_label',
      );
    }
    this.#choice = choice;
  }

  /** Function names: a tool's own name when no other tool has it, else `<server_label>__<name>`. */
  #declare(reserved: string[]): void {
    const counts = new Map<string, number>();
    for (const name of reserved) counts.set(name, 2);
    for (const server of this.#servers)
      for (const tool of server.tools) counts.set(sanitize(tool.name), (counts.get(sanitize(tool.name)) ?? 0) + 1);
    for (const server of this.#servers) {
      for (const tool of server.tools) {
        const plain = sanitize(tool.name);
        const name = counts.get(plain) === 1 ? plain : sanitize(`${server.settings.serverLabel}__${tool.name}`);
        if (!this.#routes.has(name)) this.#routes.set(name, { server, tool });
      }
    }
  }
}

/** A tool call the run answered, and the text the model gets for it. */
export interface ChatToolCallResult {
  call: ChatToolCall;
  content: string;
}
