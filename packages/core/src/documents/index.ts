// STUB (owner: documents helper).
import type { Schema } from '../db';
export const documentsSchema: Schema = { component: 'documents', migrations: [] };
export class Documents {
  constructor(_deps: unknown) {}
  start(): void {}
  async close(): Promise<void> {}
}
