// STUB (owner: agents helper).
import type { Schema } from '../db';
export const agentsSchema: Schema = { component: 'agents', migrations: [] };
export class Agents {
  constructor(_deps: unknown) {}
  start(): void {}
  async close(): Promise<void> {}
}
