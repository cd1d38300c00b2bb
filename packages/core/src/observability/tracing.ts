import { context, propagation, ROOT_CONTEXT, trace, type Context, type Tracer } from '@opentelemetry/api';

/** The SDK parts tracing needs once configured (loaded only then, so an unconfigured process pays nothing). */
interface TracingSdk {
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** Where spans go: `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` as given, or `OTEL_EXPORTER_OTLP_ENDPOINT` + `/v1/traces`; none = off. */
export function tracesEndpoint(env: Record<string, string | undefined>): string | undefined {
  if (/^true$/i.test(env.OTEL_SDK_DISABLED ?? '') || env.OTEL_TRACES_EXPORTER === 'none') return undefined;
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces`;
  return undefined;
}

/**
 * OpenTelemetry tracing of this process. Off (and free: no SDK loaded, no span made) until `start` finds
 * an OTLP endpoint in the standard `OTEL_*` settings; then the Node SDK's tracer provider is registered
 * globally (AsyncLocalStorage context, W3C trace context propagation) and spans leave in batches over
 * OTLP/HTTP. Once per process, like the provider it registers.
 */
class Tracing {
  /** Whether spans are being made (tracing was configured). */
  enabled = false;
  #sdk: TracingSdk | undefined;
  #starting: Promise<void> | undefined;

  /** Fathom's tracer (a no-op until `start` registered the SDK). */
  get(): Tracer {
    return trace.getTracer('fathom');
  }

  /** Registers the SDK when `env` configures an OTLP endpoint; a no-op otherwise, and on later calls. */
  start(env: Record<string, string | undefined>): Promise<void> {
    const url = tracesEndpoint(env);
    if (!url || this.enabled) return Promise.resolve();
    this.#starting ??= this.#register(url, env).finally(() => {
      this.#starting = undefined;
    });
    return this.#starting;
  }

  async #register(url: string, env: Record<string, string | undefined>): Promise<void> {
    const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
      import('@opentelemetry/sdk-trace-node'),
      import('@opentelemetry/exporter-trace-otlp-http'),
      import('@opentelemetry/resources'),
    ]);
    const provider = new NodeTracerProvider({
      resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME || 'fathom' }),
      spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
    });
    provider.register();
    this.#sdk = provider;
    this.enabled = true;
  }

  /** Sends the spans still buffered (tests, shutdown). */
  async flush(): Promise<void> {
    await this.#sdk?.forceFlush();
  }

  /**
   * Flushes and stops the SDK (process exit) and unregisters it: tracing is off again, and a later `start`
   * registers a new one (a test process that runs several files one after the other).
   */
  async shutdown(): Promise<void> {
    await this.#starting;
    const sdk = this.#sdk;
    this.#sdk = undefined;
    this.enabled = false;
    if (!sdk) return;
    await sdk.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  }
}

/** This process's tracing. */
export const tracer = new Tracing();

/** A W3C `traceparent` for the active span, to store with queued work so the worker continues the trace; none when tracing is off. */
export function currentTraceparent(): string | null {
  if (!tracer.enabled) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ?? null;
}

/** The context a stored `traceparent` stands for (the trace a queued task continues). */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  if (!traceparent || !tracer.enabled) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { traceparent });
}

/** Adds `traceparent` (and `tracestate`) of the active span to outbound headers, when tracing is on. */
export function injectTraceHeaders(headers: Record<string, string>): void {
  if (tracer.enabled) propagation.inject(context.active(), headers);
}

/**
 * Runs `fn` inside a span `name` (child of the active one, or of `parent`), ending it when `fn` settles
 * and marking it failed when `fn` throws. Without tracing, runs `fn` alone.
 */
export async function inSpan<T>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  fn: () => Promise<T>,
  parent?: Context,
): Promise<T> {
  if (!tracer.enabled) return fn();
  return tracer.get().startActiveSpan(name, { attributes }, parent ?? context.active(), async (span) => {
    try {
      return await fn();
    } catch (error) {
      span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * `inSpan` for an async generator: the span `name` is active while `steps` runs (each step runs in its
 * context, so model calls made by a step are its children) and ends when the generator ends, throws or
 * is closed early. Without tracing, answers `steps()` itself.
 */
export async function* inSpanSteps<T, R>(
  name: string,
  attributes: Record<string, string | number | boolean>,
  steps: () => AsyncGenerator<T, R>,
): AsyncGenerator<T, R> {
  if (!tracer.enabled) return yield* steps();
  const span = tracer.get().startSpan(name, { attributes }, context.active());
  const active = trace.setSpan(context.active(), span);
  const iterator = context.with(active, steps);
  let done = false;
  try {
    for (;;) {
      const step = await context.with(active, () => iterator.next());
      if (step.done) {
        done = true;
        return step.value;
      }
      yield step.value;
    }
  } catch (error) {
    done = true;
    span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) });
    throw error;
  } finally {
    // Closed early by its reader: the inner generator runs its own cleanup.
    if (!done) await context.with(active, () => iterator.return(undefined as R));
    span.end();
  }
}
