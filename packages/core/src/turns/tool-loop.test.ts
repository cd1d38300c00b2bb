import { describe, expect, it } from 'vitest';
import type { ChatMessage, ChatRequest, ChatStreamPart, ChatToolCall } from '../models/types';
import { type PlannedCall, runToolLoop, type ToolLoopEvent, type ToolLoopOptions, type ToolLoopResult } from './tool-loop';

/** A model that answers each turn with the next scripted parts, and remembers the messages it was sent. */
function scriptedModel(turns: ChatStreamPart[][]) {
  const requests: ChatMessage[][] = [];
  return {
    requests,
    async *model(request: ChatRequest): AsyncIterable<ChatStreamPart> {
      requests.push(structuredClone(request.messages));
      const parts = turns[requests.length - 1];
      if (!parts) throw new Error('the model was asked one turn too many');
      yield* parts;
    },
  };
}

const text = (value: string): ChatStreamPart => ({ type: 'text-delta', text: value });
const finish = (finishReason: 'stop' | 'tool_calls' | 'length' = 'stop'): ChatStreamPart => ({
  type: 'finish',
  finishReason,
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});
const call = (index: number, id: string, name: string, args: string): ChatStreamPart => ({
  type: 'tool-call-delta',
  index,
  id,
  name,
  argumentsDelta: args,
});

async function drive<E>(options: ToolLoopOptions<E>): Promise<{ events: ToolLoopEvent<E>[]; result: ToolLoopResult }> {
  const events: ToolLoopEvent<E>[] = [];
  const loop = runToolLoop(options);
  for (let next = await loop.next(); ; next = await loop.next()) {
    if (next.done) return { events, result: next.value };
    events.push(next.value);
  }
}

const runEach =
  (run: (call: ChatToolCall) => Promise<string>) =>
  (step: { toolCalls: ChatToolCall[] }): PlannedCall<never>[] =>
    step.toolCalls.map((each) => ({ call: each, action: { type: 'run', run: () => run(each) } }));

describe('runToolLoop', () => {
  it('runs model turn → tool calls → results → next turn, and says each step', async () => {
    const { model, requests } = scriptedModel([
      [text('Let me look.'), call(0, 'call_1', 'weather', '{"city":"Lisbon"}'), finish('tool_calls')],
      [text('Sunny.'), finish()],
    ]);
    const messages: ChatMessage[] = [{ role: 'user', content: 'Weather?' }];
    const { events, result } = await drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: runEach(async (each) => `weather of ${JSON.parse(each.function.arguments).city}: sunny`),
    });
    expect(result).toMatchObject({ reason: 'done', toolRounds: 1, pending: [], last: { turn: 1, text: 'Sunny.' } });
    expect(events.map((event) => event.type)).toEqual([
      'turn-start',
      'part',
      'part',
      'turn-finish',
      'tool-call-start',
      'tool-call-finish',
      'round-finish',
      'turn-start',
      'part',
      'part',
      'turn-finish',
    ]);
    expect(requests[1]).toEqual([
      { role: 'user', content: 'Weather?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'weather of Lisbon: sunny' },
    ]);
    expect(events.find((event) => event.type === 'turn-finish')).toMatchObject({
      step: { finishReason: 'tool_calls', usage: { total_tokens: 5 } },
    });
  });

  it('gives the tool the whole name and arguments when the stream splits them over several deltas', async () => {
    const { model } = scriptedModel([
      [
        { type: 'tool-call-delta', index: 0, id: 'call_1', name: 'get_' },
        { type: 'tool-call-delta', index: 0, name: 'wea' },
        { type: 'tool-call-delta', index: 0, name: 'ther', argumentsDelta: '{"city":' },
        { type: 'tool-call-delta', index: 0, argumentsDelta: '"Porto"}' },
        finish('tool_calls'),
      ],
      [text('Done.'), finish()],
    ]);
    const seen: string[] = [];
    const messages: ChatMessage[] = [];
    await drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: runEach(async (each) => {
        seen.push(`${each.function.name} ${each.function.arguments}`);
        return 'ok';
      }),
    });
    expect(seen).toEqual(['get_weather {"city":"Porto"}']);
  });

  it('stops at maxToolRounds before running the calls of the turn past it', async () => {
    const asks = [call(0, 'c', 'again', '{}'), finish('tool_calls')];
    const { model, requests } = scriptedModel([asks, asks, asks]);
    let ran = 0;
    const messages: ChatMessage[] = [];
    const { result } = await drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: runEach(async () => `${++ran}`),
      maxToolRounds: 2,
    });
    expect(result).toMatchObject({ reason: 'max-tool-rounds', toolRounds: 2 });
    expect([ran, requests.length]).toEqual([2, 3]);
  });

  it('stops after the tools of the last turn maxTurns allows', async () => {
    const asks = [call(0, 'c', 'again', '{}'), finish('tool_calls')];
    const { model, requests } = scriptedModel([asks, asks, asks]);
    let ran = 0;
    const messages: ChatMessage[] = [];
    const { result } = await drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: runEach(async () => `${++ran}`),
      maxTurns: 2,
    });
    expect(result).toMatchObject({ reason: 'max-turns', toolRounds: 2 });
    expect([ran, requests.length]).toEqual([2, 2]);
  });

  it('ends when the request seam has no next request (a token budget spent), and when stopWhen says so', async () => {
    const exhausted = await drive({
      messages: [],
      request: () => ({ exhausted: 'max_prompt_tokens' }),
      model: scriptedModel([]).model,
      tools: () => [],
    });
    expect(exhausted.result).toMatchObject({ reason: 'exhausted', stopReason: 'max_prompt_tokens' });
    const cut = await drive({
      messages: [],
      request: () => ({ model: 'm', messages: [] }),
      model: scriptedModel([[text('Half an ans'), call(0, 'c', 'tool', '{}'), finish('length')]]).model,
      tools: runEach(async () => 'never'),
      stopWhen: (step) => step.finishReason === 'length',
    });
    expect(cut.result).toMatchObject({ reason: 'stopped', toolRounds: 0, last: { text: 'Half an ans' } });
  });

  it('a tool that throws: its message goes to the model with toolError, else the error ends the loop', async () => {
    const turns = () =>
      scriptedModel([
        [call(0, 'c', 'broken', '{}'), finish('tool_calls')],
        [text('Sorry.'), finish()],
      ]);
    const failing = runEach(async () => {
      throw new Error('disk on fire');
    });
    const first = turns();
    const messages: ChatMessage[] = [];
    const { events, result } = await drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model: first.model,
      tools: failing,
      toolError: (error) => `Error: ${(error as Error).message}`,
    });
    expect(result.reason).toBe('done');
    expect(events.find((event) => event.type === 'tool-call-finish')).toMatchObject({ output: 'Error: disk on fire', error: true });
    expect(first.requests[1]!.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c', content: 'Error: disk on fire' });

    const second = turns();
    await expect(
      drive({ messages: [], request: () => ({ model: 'm', messages: [] }), model: second.model, tools: failing }),
    ).rejects.toThrow('disk on fire');
    expect(second.requests).toHaveLength(1);
  });

  it('cancellation: an abort during a tool ends the loop with its reason and asks the model nothing more', async () => {
    const { model, requests } = scriptedModel([
      [call(0, 'a', 'slow', '{}'), call(1, 'b', 'slow', '{}'), finish('tool_calls')],
      [text('never'), finish()],
    ]);
    const controller = new AbortController();
    const ran: string[] = [];
    const messages: ChatMessage[] = [];
    const outcome = drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: runEach(async (each) => {
        ran.push(each.id);
        controller.abort(new Error('cancelled by the client'));
        return 'late';
      }),
      // An aborted loop does not turn the abort into a tool's error text.
      toolError: () => 'swallowed',
      signal: controller.signal,
    });
    await expect(outcome).rejects.toThrow('cancelled by the client');
    expect(ran).toEqual(['a']);
    expect(requests).toHaveLength(1);
  });

  it('requires_action: client calls end the round with the pending calls; resuming feeds their outputs back', async () => {
    const { model, requests } = scriptedModel([
      [call(0, 'call_s', 'search', '{"q":"x"}'), call(1, 'call_f', 'client_fn', '{"a":1}'), finish('tool_calls')],
      [text('Both done.'), finish()],
    ]);
    const messages: ChatMessage[] = [{ role: 'user', content: 'Go' }];
    const options = {
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: (step: { toolCalls: ChatToolCall[] }): PlannedCall<never>[] =>
        step.toolCalls.map((each) => ({
          call: each,
          action: each.function.name === 'search' ? { type: 'run', run: async () => 'found x' } : { type: 'client' },
        })),
    };
    const first = await drive(options);
    expect(first.result).toMatchObject({ reason: 'client', toolRounds: 1 });
    expect(first.result.pending.map((each) => each.function)).toEqual([{ name: 'client_fn', arguments: '{"a":1}' }]);
    // The assistant message keeps the client's call; the searched result is already in.
    expect(messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [expect.objectContaining({ id: 'call_s' }), expect.objectContaining({ id: 'call_f' })],
      },
      { role: 'tool', tool_call_id: 'call_s', content: 'found x' },
    ]);

    messages.push({ role: 'tool', tool_call_id: 'call_f', content: '{"ok":true}' });
    const second = await drive({ ...options, toolRoundsDone: first.result.toolRounds });
    expect(second.result).toMatchObject({ reason: 'done', toolRounds: 1, last: { text: 'Both done.' } });
    expect(requests[1]!.at(-1)).toEqual({ role: 'tool', tool_call_id: 'call_f', content: '{"ok":true}' });
  });

  it('resume: a recorded turn whose tools did not run starts the loop with them, without asking the model again', async () => {
    const { model, requests } = scriptedModel([[text('Answer.'), finish()]]);
    const messages: ChatMessage[] = [];
    const { result } = await drive({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: runEach(async () => 'result'),
      resume: { turn: 0, text: '', toolCalls: [{ id: 'c', type: 'function', function: { name: 't', arguments: '{}' } }] },
      toolRoundsDone: 3,
    });
    expect(result).toMatchObject({ reason: 'done', toolRounds: 4 });
    expect(requests).toHaveLength(1);
    expect(requests[0]!.at(-1)).toEqual({ role: 'tool', tool_call_id: 'c', content: 'result' });
  });

  it('a call waiting for approval announces itself and ends the loop after the round; dropped calls are not answered', async () => {
    const { model } = scriptedModel([
      [call(0, 'a', 'needs_ok', '{}'), call(1, 'b', 'runs', '{}'), call(2, 'c', 'over_limit', '{}'), finish('tool_calls')],
    ]);
    const messages: ChatMessage[] = [];
    const { events, result } = await drive<string>({
      messages,
      request: () => ({ model: 'm', messages }),
      model,
      tools: (step) => [
        {
          call: step.toolCalls[0]!,
          action: {
            type: 'wait',
            announce: async function* () {
              yield 'approval requested';
            },
          },
        },
        {
          call: step.toolCalls[1]!,
          action: {
            type: 'run',
            run: async function* () {
              yield 'running';
              return 'ran';
            },
          },
        },
        { call: step.toolCalls[2]!, action: { type: 'drop' } },
      ],
    });
    expect(result.reason).toBe('wait');
    expect(events.filter((event) => event.type === 'event').map((event) => event.event)).toEqual(['approval requested', 'running']);
    expect(messages.map((message) => message.role)).toEqual(['assistant', 'tool']);
    expect(messages[0]!.tool_calls!.map((each) => each.id)).toEqual(['b']);
  });
});
