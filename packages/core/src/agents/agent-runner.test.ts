import { describe, expect, it } from 'vitest';
import { silentLogger } from '../internal/logger';
import { MAX_TOOL_RESULT_CHARS } from '../internal/tool-result';
import type { ChatAdapterContract, ChatRequest, ChatResult, ChatStreamPart } from '../models/types';
import type { AgentWebhooks } from './agent-deps';
import type { AgentRunEvent } from './agent-objects';
import { runWorkflow, type RunWorkflowOptions } from './agent-runner';
import { builtInTools } from './built-in-tools';
import type { Workflow } from './workflow-types';

type Turn = { content?: string; calls?: Array<{ name: string; args: unknown }> } | Error;

/** A scripted in-memory chat: each call takes the next turn; requests are recorded. */
function scriptedChat(turns: Turn[]): ChatAdapterContract & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  const next = (request: ChatRequest) => {
    requests.push(structuredClone(request));
    const turn = turns.shift();
    if (!turn) throw new Error('script exhausted');
    if (turn instanceof Error) throw turn;
    return turn;
  };
  const toolCalls = (turn: Exclude<Turn, Error>) =>
    (turn.calls ?? []).map((call, index) => ({
      id: `call_${requests.length}_${index}`,
      type: 'function' as const,
      function: { name: call.name, arguments: typeof call.args === 'string' ? call.args : JSON.stringify(call.args) },
    }));
  return {
    requests,
    async complete(request): Promise<ChatResult> {
      const turn = next(request);
      const calls = toolCalls(turn);
      return {
        id: 'x',
        model: request.model,
        message: { role: 'assistant', content: turn.content ?? null, ...(calls.length ? { tool_calls: calls } : {}) },
        finishReason: calls.length ? 'tool_calls' : 'stop',
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
    },
    async *stream(request): AsyncIterable<ChatStreamPart> {
      const turn = next(request);
      for (const word of (turn.content ?? '').split(/(?<= )/)) if (word) yield { type: 'text-delta', text: word };
      for (const [index, call] of toolCalls(turn).entries()) {
        yield {
          type: 'tool-call-delta',
          index,
          id: call.id,
          name: call.function.name,
          argumentsDelta: call.function.arguments.slice(0, 3),
        };
        yield { type: 'tool-call-delta', index, argumentsDelta: call.function.arguments.slice(3) };
      }
      yield { type: 'finish', finishReason: 'stop' };
    },
  };
}

/** Compiles each enabled route into a tool named after it; execute records calls and answers per route. */
function fakeWebhooks(answers: Record<string, string>): AgentWebhooks & { calls: any[] } {
  const calls: any[] = [];
  return {
    calls,
    compile: (cards) => ({
      tools: cards.flatMap((card: any) =>
        card.config.routes.map((route: any) => ({ name: route.name, routeName: route.name, description: route.description, card })),
      ),
      collisions: [],
    }),
    toolDefinition: (tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: { type: 'object', properties: {} } },
    }),
    async execute(card, routeName, args, options) {
      calls.push({ card: card.name, routeName, args, rateLimitKey: options?.rateLimitKey });
      return answers[routeName] ?? 'ok';
    },
  };
}

const card = {
  name: 'CRM',
  config: {
    baseUrl: 'https://crm.example.com',
    auth: { type: 'bearer', token: 'sk-secret' },
    routes: ['find_customer', 'delete_customer'].map((name) => ({ name, description: name, whenToUse: name, path: '/x' })),
  },
};

function twoAgentWorkflow(filter?: string[]): Workflow {
  return {
    nodes: [
      { id: 'start', type: 'start', data: { variables: [{ name: 'company', type: 'input', required: true }] } },
      {
        id: 'researcher',
        type: 'agent',
        data: { name: 'R', model: 'fake/a', system_prompt: 'You research for {{company}}.', config: { tools_filter: filter } },
      },
      { id: 'writer', type: 'agent', data: { name: 'W', model: 'fake/b', system_prompt: 'Write for {{company}}.' } },
      { id: 'crm', type: 'webhook', data: card as any },
      { id: 'end', type: 'end', data: { status: 'success' } },
    ],
    edges: [
      { id: 'e1', source: 'start', target: 'researcher' },
      { id: 'e2', source: 'researcher', target: 'writer' },
      { id: 'e3', source: 'writer', target: 'end' },
      { id: 'e4', source: 'crm', target: 'researcher', targetHandle: 'slot-0' },
    ],
  };
}

async function collect(options: Partial<RunWorkflowOptions> & Pick<RunWorkflowOptions, 'chat' | 'webhooks' | 'workflow'>) {
  const steps: any[] = [];
  const events: AgentRunEvent[] = [];
  for await (const event of runWorkflow({
    agentId: 'agent_1',
    runId: 'run_1',
    accountId: 'acct_1',
    version: 1,
    message: 'Tell me about {{company}}',
    variables: { company: 'Acme' },
    stream: false,
    signal: new AbortController().signal,
    builtIns: builtInTools(options.chat, {}),
    maxToolRounds: 10,
    log: silentLogger,
    record: (step) => steps.push(step),
    ...options,
  })) {
    events.push(event);
  }
  return { events, steps };
}

describe('runWorkflow', () => {
  it('runs start -> researcher (with tools) -> writer -> end, feeding outputs along the pipeline', async () => {
    const chat = scriptedChat([
      { calls: [{ name: 'find_customer', args: { q: 'Acme' } }] },
      { content: 'Acme buys rockets.' },
      { content: 'Report: Acme buys rockets.' },
    ]);
    const webhooks = fakeWebhooks({ find_customer: '{"name":"Acme"}' });
    const { events, steps } = await collect({ chat, webhooks, workflow: twoAgentWorkflow() });
    expect(events.map((event) => event.type)).toEqual([
      'run.started',
      'tool_use',
      'tool_result',
      'message.delta',
      'message.delta',
      'run.completed',
    ]);
    expect(events.at(-1)).toMatchObject({ output: 'Report: Acme buys rockets.' });
    expect(chat.requests[0]!.messages).toEqual([
      { role: 'system', content: 'You research for Acme.' },
      { role: 'user', content: 'Tell me about Acme' },
    ]);
    expect(chat.requests[0]!.tools!.map((tool) => tool.function.name)).toEqual(['summarize', 'find_customer', 'delete_customer']);
    expect(chat.requests[1]!.messages.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_1_0', content: '{"name":"Acme"}' });
    expect(chat.requests[2]!.messages.at(-1)).toEqual({ role: 'user', content: 'Acme buys rockets.' });
    // The writer receives the researcher's card through the pipeline (researcher -> writer).
    expect(chat.requests[2]!.tools!.map((tool) => tool.function.name)).toEqual(['summarize', 'find_customer', 'delete_customer']);
    expect(webhooks.calls).toEqual([{ card: 'CRM', routeName: 'find_customer', args: { q: 'Acme' }, rateLimitKey: 'agent_1:crm' }]);
    expect(steps.map((step) => step.type)).toEqual(['tool_call', 'message', 'message']);
    expect(JSON.stringify(chat.requests)).not.toContain('sk-secret');
  });

  it('bounds a tool result before it enters the model context and the stored run, and says it was cut', async () => {
    const chat = scriptedChat([{ calls: [{ name: 'find_customer', args: {} }] }, { content: 'ok' }, { content: 'done' }]);
    const huge = JSON.stringify({ rows: Array.from({ length: 60_000 }, (_, i) => `row ${i}`) });
    expect(huge.length).toBeGreaterThan(500_000);
    const { events, steps } = await collect({ chat, webhooks: fakeWebhooks({ find_customer: huge }), workflow: twoAgentWorkflow() });
    const sent = chat.requests[1]!.messages.at(-1)!.content as string;
    expect(sent.length).toBeLessThanOrEqual(MAX_TOOL_RESULT_CHARS);
    expect(huge.startsWith(sent.slice(0, 90_000))).toBe(true);
    expect(sent).toMatch(/\[Result truncated: it is longer than 100,000 characters; only the first part is shown\.\]$/);
    expect(steps[0]).toMatchObject({ type: 'tool_call', output: sent });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ output: sent });
  });

  it('narrows tools with tools_filter and answers an unknown tool with error text', async () => {
    const chat = scriptedChat([{ calls: [{ name: 'delete_customer', args: {} }] }, { content: 'ok' }, { content: 'done' }]);
    const webhooks = fakeWebhooks({});
    const { events } = await collect({ chat, webhooks, workflow: twoAgentWorkflow(['find_customer']) });
    expect(chat.requests[0]!.tools!.map((tool) => tool.function.name)).toEqual(['find_customer']);
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({
      output: expect.stringMatching(/^Error: Tool 'delete_customer' is not available/),
    });
    expect(webhooks.calls).toEqual([]);
    expect(events.at(-1)?.type).toBe('run.completed');
  });

  it('streams text deltas and assembles tool calls split across deltas', async () => {
    const chat = scriptedChat([
      { calls: [{ name: 'find_customer', args: { q: 'Acme Corp' } }] },
      { content: 'Acme is big.' },
      { content: 'Big Acme.' },
    ]);
    const webhooks = fakeWebhooks({});
    const { events } = await collect({ chat, webhooks, workflow: twoAgentWorkflow(), stream: true });
    expect(webhooks.calls[0].args).toEqual({ q: 'Acme Corp' });
    const deltas = events.filter((event) => event.type === 'message.delta').map((event: any) => event.content);
    expect(deltas).toEqual(['Acme ', 'is ', 'big.', 'Big ', 'Acme.']);
  });

  it('fails the run when the model keeps calling tools past the round cap', async () => {
    const chat = scriptedChat(Array.from({ length: 5 }, () => ({ calls: [{ name: 'find_customer', args: {} }] })));
    const { events } = await collect({ chat, webhooks: fakeWebhooks({}), workflow: twoAgentWorkflow(), maxToolRounds: 3 });
    expect(events.filter((event) => event.type === 'tool_use')).toHaveLength(3);
    expect(events.at(-1)).toEqual({ type: 'run.failed', run_id: 'run_1', error: expect.stringContaining('3 tool-calling rounds') });
  });

  it('fails the run with the model error message, and answers bad tool arguments with error text', async () => {
    const chat = scriptedChat([{ calls: [{ name: 'find_customer', args: '{not json' }] }, new Error('upstream said 503')]);
    const { events } = await collect({ chat, webhooks: fakeWebhooks({}), workflow: twoAgentWorkflow() });
    expect(events.find((event) => event.type === 'tool_result')).toMatchObject({ output: expect.stringContaining('not valid JSON') });
    expect(events.at(-1)).toEqual({ type: 'run.failed', run_id: 'run_1', error: 'upstream said 503' });
  });

  it('offers web_search only when a search source is configured', () => {
    const chat = scriptedChat([]);
    expect(builtInTools(chat, {}).map((tool) => tool.definition.function.name)).toEqual(['summarize']);
    expect(builtInTools(chat, { FATHOM_WEB_SEARCH_URL: 'http://127.0.0.1:1/search' }).map((tool) => tool.definition.function.name)).toEqual(
      ['summarize', 'web_search'],
    );
  });
});
