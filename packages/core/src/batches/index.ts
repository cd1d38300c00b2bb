// Batches: `fathom.batches`, OpenAI's Batch API over the Files API and the durable lease queue.
export { Batches, type BatchesOptions } from './batches';
export { batchesSchema } from './schema';
export type { BatchBilling } from './billing';
export type { BatchRow, LineUsage } from './batches-repository';
export type { BatchBounds } from './read-input';
export type { BatchEndpointCalls } from './endpoints';
export type { BatchFiles } from './output-files';
export * from './wire/batches';
