// STUB (owner: jobs helper).
import type { Schema } from '../db';
export const jobsSchema: Schema = { component: 'jobs', migrations: [] };
export class JobEngine {
  constructor(_deps: unknown) {}
  start(): void {}
  async close(): Promise<void> {}
}
