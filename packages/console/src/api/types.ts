import type { AccountBalance, AccountWithKeys, DataTool as ApiDataTool, ToolJob } from '@fathom/core';

/**
 * The shapes of the /v1 answers the console reads. Fathom's own objects are the types of their
 * declarations in `@fathom/core` (type-only imports: nothing of core is bundled); the rest are the
 * fields the console uses.
 */

export type { Agent, AgentRun, AgentRunStep, AgentRunSummary, AgentVersion, LedgerEntry, WorkflowToolsPreview } from '@fathom/core';

// Declared once in core (`/v1/openapi.json` is generated from the same declarations): types only, nothing is bundled.
export type { Batch } from '@fathom/core';

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

/** `GET /v1/account`. */
export type Account = AccountBalance;

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

/** A data tool of the catalog; its `input_schema` read as the JSON Schema the form renderer walks. */
export type DataTool = Omit<ApiDataTool, 'input_schema'> & { input_schema: JsonSchema };

export type Job = ToolJob;

/** An account as the admin list shows it, with its keys' hints. */
export type AdminAccount = AccountWithKeys;

// Keys as objects (and their resource families) and the grouped usage (spend), latency and error views, as core declares them: types only.
export type { ApiKey, ApiKeyCreateParams, ApiKeyWithValue, ApiKeysPage, KeyPermissions, PermissionLevel } from '@fathom/core';
export type { LatencyPage, LatencyRow, UsageErrorRow, UsageErrorsPage, UsageGroup, UsageGroupsPage } from '@fathom/core';
export type { ResourceFamily } from '@fathom/core';
