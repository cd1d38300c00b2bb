import type { ServerResponse } from 'node:http';
import { createTestServer, respond, type RecordedRequest, type TestServer } from './test-server';

/**
 * One scripted model turn. The fake answers each successive chat request with the next turn,
 * streaming it (word by word) when the request says `stream: true`, as one JSON body otherwise.
 */
export interface FakeTurn {
  /** Assistant text. */
  content?: string;
  /** Tool calls the model makes; `arguments` may be an object (JSON-encoded for you) or a string. */
  toolCalls?: Array<{ id?: string; name: string; arguments?: unknown }>;
  /** Default: `tool_calls` when there are tool calls, else `stop`. */
  finishReason?: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** Default: prompt = ceil(request JSON length / 4), completion = words of content + 10 per tool call. */
  usage?: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } };
  /** Answer with this HTTP error (in the provider's error shape) instead. */
  error?: { status: number; message?: string };
  /** Wait this long before answering, and between streamed chunks; ms. */
  delayMs?: number;
  /** Never finish: non-streaming requests get no answer, streams send their first chunk then stall. */
  hang?: boolean;
  /**
   * Stream each tool call's function name in two pieces, as some providers do (OpenAI sends it whole):
   * every consumer of a stream must join the pieces.
   */
  splitToolNames?: boolean;
}

/** A list of turns used in order (a request beyond the list answers 500), or a function choosing each turn. */
export type FakeScript = FakeTurn[] | ((request: any, index: number) => FakeTurn);

export interface FakeUpstreamOptions {
  /** Answer of `GET /models`; default `['fake-model', 'fake-model-mini']`. */
  models?: string[];
  /** Length of `/embeddings` vectors; default 8. */
  embeddingDimensions?: number;
}

export interface FakeUpstream {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `<url>/v1`: put it in `FATHOM_PROVIDERS` as the vendor's `baseUrl`. */
  baseUrl: string;
  /** Parsed JSON bodies of the chat requests received (`/chat/completions` or `/messages`), in order. */
  requests: any[];
  /** Every HTTP request received (headers included). */
  server: TestServer;
  /** How many answers were cut because the client closed the connection before the end. */
  readonly closedEarly: number;
  /** Resolves at the next (or an already seen) early close. */
  waitForClose(timeoutMs?: number): Promise<void>;
  /** Appends turns to an array script. */
  push(...turns: FakeTurn[]): void;
  close(): Promise<void>;
}

export interface TurnWriter {
  json(response: ServerResponse, turn: FakeTurn, request: any): void;
  /** Streams the turn; `pause()` resolves after the delay or never (hang). */
  stream(response: ServerResponse, turn: FakeTurn, request: any, pause: () => Promise<void>): Promise<void>;
  error(response: ServerResponse, status: number, message: string): void;
}

/** Splits text into word-sized pieces that concatenate back to it exactly. */
export function pieces(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
}

export function defaultUsage(turn: FakeTurn, request: RecordedRequest['json']): { prompt_tokens: number; completion_tokens: number } {
  return (
    turn.usage ?? {
      prompt_tokens: Math.ceil(JSON.stringify(request?.messages ?? request?.input ?? '').length / 4),
      completion_tokens: pieces(turn.content ?? '').length + 10 * (turn.toolCalls?.length ?? 0),
    }
  );
}

export function argumentsText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value ?? {});
}

/** The shared machinery of the fake upstreams: script, recording, early-close tracking. */
export async function createScriptedUpstream(
  script: FakeScript,
  chatPath: string,
  writer: TurnWriter,
  extra: (request: RecordedRequest, response: ServerResponse) => boolean,
): Promise<FakeUpstream> {
  const turns = Array.isArray(script) ? [...script] : null;
  const requests: any[] = [];
  let closedEarly = 0;
  let waiters: Array<() => void> = [];
  const server = await createTestServer({
    '*': async (request, response) => {
      if (request.method === 'POST' && request.path.endsWith(chatPath)) {
        const index = requests.length;
        requests.push(request.json);
        response.on('close', () => {
          if (response.writableFinished) return;
          closedEarly++;
          for (const resolve of waiters) resolve();
          waiters = [];
        });
        const turn = turns ? turns[index] : (script as Exclude<FakeScript, FakeTurn[]>)(request.json, index);
        if (!turn) return writer.error(response, 500, `fake upstream: script has no turn ${index + 1}`);
        const pause = () =>
          turn.hang
            ? new Promise<void>(() => undefined)
            : turn.delayMs
              ? new Promise<void>((resolve) => setTimeout(resolve, turn.delayMs))
              : Promise.resolve();
        if (!request.json?.stream || turn.error) await pause();
        if (turn.error) return writer.error(response, turn.error.status, turn.error.message ?? `fake upstream error ${turn.error.status}`);
        if (request.json?.stream) return writer.stream(response, turn, request.json, pause);
        return writer.json(response, turn, request.json);
      }
      if (!extra(request, response))
        respond.json(response, 404, { error: { message: `fake upstream: no route ${request.method} ${request.path}` } });
    },
  });
  return {
    url: server.url,
    baseUrl: `${server.url}/v1`,
    requests,
    server,
    get closedEarly() {
      return closedEarly;
    },
    waitForClose(timeoutMs = 5000) {
      if (closedEarly > 0) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('fake upstream: no early close seen')), timeoutMs);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    push(...more) {
      if (!turns) throw new Error('fake upstream: push() needs an array script');
      turns.push(...more);
    },
    close: () => server.close(),
  };
}

/**
 * The log probability the fake gives the `index`-th piece of a turn's content (`-0.1`, `-0.2`, …), with
 * `top` alternatives (the piece itself first): what a request with `logprobs: true` gets back.
 */
export function fakeTokenLogprob(token: string, index: number, top: number) {
  const logprob = -(index + 1) / 10;
  const entry = (text: string, value: number) => ({ token: text, logprob: value, bytes: [...Buffer.from(text)] });
  return {
    ...entry(token, logprob),
    top_logprobs: Array.from({ length: top }, (_, rank) => entry(rank === 0 ? token : `${token.trim()}#${rank}`, logprob - rank)),
  };
}

/** `choices[].logprobs` for these pieces when the request asked for `logprobs`, else null. */
function logprobsFor(request: { logprobs?: unknown; top_logprobs?: unknown } | undefined, pieces: string[], first = 0) {
  if (request?.logprobs !== true) return null;
  const top = typeof request.top_logprobs === 'number' ? request.top_logprobs : 0;
  return { content: pieces.map((piece, index) => fakeTokenLogprob(piece, first + index, top)), refusal: null };
}

function fakeEmbedding(text: string, dimensions: number): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (let i = 0; i < text.length; i++) vector[(text.charCodeAt(i) * 31 + i) % dimensions]! += 1;
  const norm = Math.sqrt(vector.reduce((sum, value) => sum + value * value, 0)) || 1;
  return vector.map((value) => value / norm);
}

const openAIWriter: TurnWriter = {
  json(response, turn, request) {
    const usage = defaultUsage(turn, request);
    const toolCalls = turn.toolCalls?.map((call, index) => ({
      id: call.id ?? `call_fake_${index}`,
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call.arguments) },
    }));
    respond.json(response, 200, {
      id: 'chatcmpl-fake',
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: turn.content ?? null, ...(toolCalls?.length ? { tool_calls: toolCalls } : {}) },
          logprobs: logprobsFor(request, pieces(turn.content ?? '')),
          finish_reason: turn.finishReason ?? (toolCalls?.length ? 'tool_calls' : 'stop'),
        },
      ],
      usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
    });
  },
  async stream(response, turn, request, pause) {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model };
    const send = (choices: unknown[], more: object = {}) => response.write(`data: ${JSON.stringify({ ...base, choices, ...more })}\n\n`);
    send([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    for (const [index, piece] of pieces(turn.content ?? '').entries()) {
      await pause();
      if (response.destroyed) return;
      const logprobs = logprobsFor(request, [piece], index);
      send([{ index: 0, delta: { content: piece }, ...(logprobs ? { logprobs } : {}), finish_reason: null }]);
    }
    for (const [index, call] of (turn.toolCalls ?? []).entries()) {
      const args = argumentsText(call.arguments);
      const half = Math.ceil(args.length / 2);
      const nameHalf = turn.splitToolNames ? Math.ceil(call.name.length / 2) : call.name.length;
      await pause();
      if (response.destroyed) return;
      send([
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                id: call.id ?? `call_fake_${index}`,
                type: 'function',
                function: { name: call.name.slice(0, nameHalf), arguments: args.slice(0, half) },
              },
            ],
          },
          finish_reason: null,
        },
      ]);
      send([
        {
          index: 0,
          delta: {
            tool_calls: [
              {
                index,
                function: { ...(nameHalf < call.name.length ? { name: call.name.slice(nameHalf) } : {}), arguments: args.slice(half) },
              },
            ],
          },
          finish_reason: null,
        },
      ]);
    }
    if (turn.hang) await pause();
    send([{ index: 0, delta: {}, finish_reason: turn.finishReason ?? (turn.toolCalls?.length ? 'tool_calls' : 'stop') }]);
    if (request.stream_options?.include_usage) {
      const usage = defaultUsage(turn, request);
      send([], { usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } });
    }
    response.end('data: [DONE]\n\n');
  },
  error(response, status, message) {
    respond.json(response, status, {
      error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error', param: null, code: null },
    });
  },
};

/**
 * A scripted OpenAI-compatible upstream on 127.0.0.1 for tests: answers `POST /v1/chat/completions`
 * from the script (streaming or not, as each request asks; tool calls included), `GET /v1/models`
 * and `POST /v1/embeddings`, and records every chat request body.
 *
 * ```ts
 * const upstream = await createFakeOpenAIUpstream([
 *   { toolCalls: [{ name: 'file_search', arguments: { query: 'refunds' } }] },
 *   { content: 'Refunds take 5 days.' },
 * ]);
 * // FATHOM_PROVIDERS={"fake":{"type":"openai","baseUrl": upstream.baseUrl}}, model "fake/any-name"
 * upstream.requests[1].messages; // what the model saw on its second turn
 * ```
 */
export function createFakeOpenAIUpstream(script: FakeScript, options: FakeUpstreamOptions = {}): Promise<FakeUpstream> {
  const models = options.models ?? ['fake-model', 'fake-model-mini'];
  const dimensions = options.embeddingDimensions ?? 8;
  return createScriptedUpstream(script, '/chat/completions', openAIWriter, (request, response) => {
    if (request.method === 'GET' && request.path.endsWith('/models')) {
      respond.json(response, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'fake' })) });
      return true;
    }
    if (request.method === 'POST' && request.path.endsWith('/embeddings')) {
      const input: unknown[] = Array.isArray(request.json?.input) ? request.json.input : [request.json?.input];
      const texts = input.map((value) => (typeof value === 'string' ? value : JSON.stringify(value)));
      const data = texts.map((text, index) => {
        const vector = fakeEmbedding(text, request.json?.dimensions ?? dimensions);
        const embedding =
          request.json?.encoding_format === 'base64' ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector;
        return { object: 'embedding', index, embedding };
      });
      const tokens = texts.reduce((sum, text) => sum + pieces(text).length, 0);
      respond.json(response, 200, {
        object: 'list',
        model: request.json?.model,
        data,
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
      return true;
    }
    return false;
  });
}
