// STUB (owner: models helper).
import type { Schema } from '../db';
export * from './types';
export const modelsSchema: Schema = { component: 'models', migrations: [] };
export class ChatAdapter {
  constructor(_deps: unknown) {}
  async close(): Promise<void> {}
}
