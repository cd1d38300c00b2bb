export { FathomMetrics, metrics } from './metrics';
export { readQueueGauges } from './queue-gauges';
export { pinoLogger } from './pino-logger';
