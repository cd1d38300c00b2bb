// STUB (owner: assistants helper).
import type { Schema } from '../db';
export const assistantsSchema: Schema = { component: 'assistants', migrations: [] };
export class AssistantRunner {
  constructor(_deps: unknown) {}
  start(): void {}
  async close(): Promise<void> {}
}
