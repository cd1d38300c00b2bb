import type { ServerResponse } from 'node:http';
import {
  argumentsText,
  createScriptedUpstream,
  defaultUsage,
  pieces,
  type FakeScript,
  type FakeUpstream,
  type FakeUpstreamOptions,
  type TurnWriter,
} from './fake-openai-upstream';
import { respond } from './test-server';

const STOP_REASON = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' } as const;

function blocks(turn: Parameters<TurnWriter['json']>[1]) {
  return [
    ...(turn.content ? [{ type: 'text', text: turn.content }] : []),
    ...(turn.toolCalls ?? []).map((call, index) => ({
      type: 'tool_use',
      id: call.id ?? `toolu_fake_${index}`,
      name: call.name,
      input: JSON.parse(argumentsText(call.arguments)),
    })),
  ];
}

function stopReason(turn: Parameters<TurnWriter['json']>[1]): string {
  return STOP_REASON[turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop')];
}

const anthropicWriter: TurnWriter = {
  json(response, turn, request) {
    const usage = defaultUsage(turn, request);
    respond.json(response, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: request.model,
      content: blocks(turn),
      stop_reason: stopReason(turn),
      stop_sequence: null,
      usage: { input_tokens: usage.prompt_tokens, output_tokens: usage.completion_tokens },
    });
  },
  async stream(response: ServerResponse, turn, request, pause) {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const send = (event: string, data: Record<string, unknown>) =>
      response.write(`event: ${event}\ndata: ${JSON.stringify({ type: event, ...data })}\n\n`);
    const usage = defaultUsage(turn, request);
    send('message_start', {
      message: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
        stop_reason: null,
        usage: { input_tokens: usage.prompt_tokens, output_tokens: 1 },
      },
    });
    send('ping', {});
    let index = 0;
    if (turn.content) {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const piece of pieces(turn.content)) {
        await pause();
        if (response.destroyed) return;
        send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
      }
      send('content_block_stop', { index });
      index++;
    }
    for (const [n, call] of (turn.toolCalls ?? []).entries()) {
      await pause();
      if (response.destroyed) return;
      const args = argumentsText(call.arguments);
      const half = Math.ceil(args.length / 2);
      send('content_block_start', {
        index,
        content_block: { type: 'tool_use', id: call.id ?? `toolu_fake_${n}`, name: call.name, input: {} },
      });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(0, half) } });
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: args.slice(half) } });
      send('content_block_stop', { index });
      index++;
    }
    if (turn.hang) await pause();
    send('message_delta', {
      delta: { stop_reason: stopReason(turn), stop_sequence: null },
      usage: { output_tokens: usage.completion_tokens },
    });
    send('message_stop', {});
    response.end();
  },
  error(response, status, message) {
    const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
    respond.json(response, status, { type: 'error', error: { type, message } });
  },
};

/**
 * A scripted Anthropic Messages API upstream on 127.0.0.1 for tests: answers `POST /v1/messages`
 * from the same script format as `createFakeOpenAIUpstream` (text and `tool_use` blocks, streaming
 * events `message_start` ... `message_stop`), `GET /v1/models`, and records every request body.
 */
export function createFakeAnthropicUpstream(script: FakeScript, options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const models = options.models ?? ['claude-fake', 'claude-fake-mini'];
  return createScriptedUpstream(script, '/messages', anthropicWriter, (request, response) => {
    if (request.method === 'GET' && request.path.endsWith('/models')) {
      respond.json(response, 200, {
        data: models.map((id) => ({ id, type: 'model', display_name: id, created_at: '2026-01-01T00:00:00Z' })),
        has_more: false,
      });
      return true;
    }
    return false;
  });
}
