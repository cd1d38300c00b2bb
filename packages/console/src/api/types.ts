/** The shapes of the /v1 answers the console reads (the fields it uses). */

// Declared once in core (`/v1/openapi.json` is generated from the same declarations): types only, nothing is bundled.
export type {
  FileCounts,
  FileObject,
  VectorStore,
  VectorStoreFile,
  VectorStoreSearchResponse as SearchHit,
} from '@fathom/core';

export interface List<T> {
  object: 'list';
  data: T[];
  first_id?: string | null;
  last_id?: string | null;
  has_more?: boolean;
}

export interface Account {
  id: string;
  name: string;
  balance: number;
}

export interface LedgerEntry {
  id: string;
  kind: 'credit' | 'reserve' | 'charge' | 'release';
  amount: number;
  ref: string | null;
  description: string | null;
  created_at: number;
}

export interface Model {
  id: string;
  owned_by?: string;
}

export interface UsageRow {
  date: string;
  model: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

export interface DataTool {
  name: string;
  path: string;
  description: string;
  estimated_max_cost: number;
  input_schema: JsonSchema;
  item_fields?: unknown;
  available: boolean;
}

export interface Job {
  job_id: string;
  tool: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | string;
  cached?: boolean;
  cost?: number | null;
  estimated_max_cost: number;
  result?: { items: Array<Record<string, unknown>> } | null;
  error?: { message: string } | string | null;
  created_at: number;
  finished_at?: number | null;
}

export interface AdminAccount {
  id: string;
  name: string;
  balance: number;
  created_at: number;
  keys: Array<{ id: string; hint: string; created_at: number }>;
}
