// The assistants capability: `fathom.assistants` and `fathom.threads` (with `.messages`, `.runs`, `.runs.steps`), and their wire format.
export type { Assistants } from './assistants';
export type { Threads } from './threads';
export type { ThreadMessages } from './messages';
export type { ThreadRuns } from './runs';
export type { RunSteps } from './run-steps';
export type { RunRequestOptions } from './create-run';
export { assistantsSchema } from './schema';
export * from './wire/assistants';
export * from './wire/messages';
export * from './wire/threads';
export * from './wire/runs';
export * from './wire/run-steps';
export * from './wire/stream-events';
