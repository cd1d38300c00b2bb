/** The shapes of the /v1 answers the console reads (the fields it uses). */

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

export interface FileObject {
  id: string;
  filename: string;
  bytes: number;
  purpose: string;
  created_at: number;
}

export interface FileCounts {
  in_progress: number;
  completed: number;
  failed: number;
  cancelled: number;
  total: number;
}

export interface VectorStore {
  id: string;
  name: string;
  status: string;
  usage_bytes: number;
  file_counts: FileCounts;
  created_at: number;
}

export interface VectorStoreFile {
  id: string;
  status: 'in_progress' | 'completed' | 'failed' | 'cancelled';
  last_error: { code: string; message: string } | null;
  usage_bytes: number;
  created_at: number;
}

export interface SearchHit {
  file_id: string;
  filename: string;
  score: number;
  content: Array<{ type: 'text'; text: string }>;
}

// The models family's answers, as core declares them (`/v1/openapi.json`): types only, nothing is bundled.
export type { ModelsPage, UsagePage } from '@fathom/core';

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
