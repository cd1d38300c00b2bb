export { FathomMetrics, metrics } from './metrics';
export { readQueueGauges } from './queue-gauges';
export { pinoLogger } from './pino-logger';
export { currentRequestId, detached, withRequestId } from './request-context';
export { contextOfTraceparent, currentTraceparent, injectTraceHeaders, inSpan, inSpanSteps, tracer, tracesEndpoint } from './tracing';
export { startModelCall, type ModelCall } from './model-calls';
