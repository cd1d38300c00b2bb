import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { FathomError } from '../errors';
import { metrics } from './metrics';
import { tracer } from './tracing';

/** What a model call reports when it ends. */
export interface ModelCallEnd {
  usage?: { prompt_tokens: number; completion_tokens: number };
  finishReason?: string;
  /** The model that answered (`gen_ai.response.model`). */
  responseModel?: string;
  /** The answer's text, recorded on the span only when message content capture is on. */
  output?: unknown;
}

/** One upstream model call being observed: its metrics, and its span when tracing is configured. */
export interface ModelCall {
  /** Whether `end` records the answer's text (a span with content capture on): collect it only then. */
  readonly wantsOutput: boolean;
  /** Runs `fn` with the call's span active (its outbound request then carries the span's `traceparent`). */
  run<T>(fn: () => T): T;
  /** The first piece of a streamed answer arrived (`gen_ai_server_time_to_first_token_seconds`). */
  firstToken(): void;
  end(result: ModelCallEnd): void;
  fail(error: unknown): void;
}

export interface ModelCallStart {
  /** `gen_ai.operation.name`: `chat` or `embeddings`. */
  operation: 'chat' | 'embeddings';
  /** `gen_ai.provider.name`: the configured vendor. */
  provider: string;
  /** `gen_ai.request.model`: Fathom's `<vendor>/<model>` id. */
  model: string;
  /** The request's messages, recorded on the span only when message content capture is on. */
  input?: unknown;
  /** Whether the call streams (its time to first token is measured). */
  stream?: boolean;
}

/**
 * `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true` puts prompts and answers on model spans
 * (the GenAI conventions' opt-in); they are never there otherwise.
 */
function capturesContent(): boolean {
  return /^(true|1)$/i.test(process.env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT ?? '');
}

/** The `error.type` of a failed call: a Fathom error's stable code, else the error's class name. */
export function errorTypeOf(error: unknown): string {
  if (error instanceof FathomError) return error.code;
  if (error instanceof Error) return error.name || 'Error';
  return '_OTHER';
}

/**
 * Starts observing an upstream model call, under the GenAI semantic conventions: the operation duration,
 * token usage and time to first token histograms, and a client span `chat <model>` (child of the active
 * span) with the `gen_ai.*` attributes. A span is only made when tracing is configured.
 */
export function startModelCall(start: ModelCallStart): ModelCall {
  const started = performance.now();
  const labels = { gen_ai_operation_name: start.operation, gen_ai_provider_name: start.provider, gen_ai_request_model: start.model };
  let span: Span | undefined;
  if (tracer.enabled) {
    span = tracer.get().startSpan(`${start.operation} ${start.model}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        'gen_ai.operation.name': start.operation,
        'gen_ai.provider.name': start.provider,
        'gen_ai.request.model': start.model,
      },
    });
    if (start.input !== undefined && capturesContent()) span.setAttribute('gen_ai.input.messages', JSON.stringify(start.input));
  }
  let ended = false;
  return {
    wantsOutput: span !== undefined && capturesContent(),
    run(fn) {
      return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
    },
    firstToken() {
      if (ended || !start.stream) return;
      start.stream = false;
      metrics.timeToFirstToken.observe({ gen_ai_request_model: start.model }, (performance.now() - started) / 1000);
    },
    end(result) {
      if (ended) return;
      ended = true;
      metrics.genAiDuration.observe(labels, (performance.now() - started) / 1000);
      const tokens = { gen_ai_provider_name: start.provider, gen_ai_request_model: start.model };
      if (result.usage) {
        metrics.genAiTokens.observe({ ...tokens, gen_ai_token_type: 'input' }, result.usage.prompt_tokens);
        metrics.genAiTokens.observe({ ...tokens, gen_ai_token_type: 'output' }, result.usage.completion_tokens);
      }
      if (!span) return;
      span.setAttribute('gen_ai.response.model', result.responseModel ?? start.model);
      if (result.usage) {
        span.setAttribute('gen_ai.usage.input_tokens', result.usage.prompt_tokens);
        span.setAttribute('gen_ai.usage.output_tokens', result.usage.completion_tokens);
      }
      if (result.finishReason) span.setAttribute('gen_ai.response.finish_reasons', [result.finishReason]);
      if (result.output !== undefined && capturesContent()) span.setAttribute('gen_ai.output.messages', JSON.stringify(result.output));
      span.end();
    },
    fail(error) {
      if (ended) return;
      ended = true;
      const errorType = errorTypeOf(error);
      metrics.genAiDuration.observe({ ...labels, error_type: errorType }, (performance.now() - started) / 1000);
      if (!span) return;
      span.setAttribute('error.type', errorType);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      span.end();
    },
  };
}

/** The span of the running request or background task, if any (to add attributes to it). */
export function activeSpan(): Span | undefined {
  return tracer.enabled ? trace.getActiveSpan() : undefined;
}
