// STUB (owner: vector/embeddings helper).
import type { Schema } from '../db';
export * from './types';
export const vectorSchema: Schema = { component: 'vector', migrations: [] };
export class VectorIndex {
  constructor(_deps: unknown) {}
  async close(): Promise<void> {}
}
