import type {
  Account,
  AccountWithKeys,
  AgentObject,
  AgentRunObject,
  AgentRunSummary,
  AgentVersionObject,
  LedgerEntry,
  ListPage,
  ToolDefinition,
  ToolJob,
  UsageRow,
  Workflow,
  WorkflowToolsPreview,
} from '@fathom/core';
import type OpenAI from 'openai';

/**
 * The JSON bodies of Fathom's own routes as the http tests read them (`json<T>()` in the harness).
 * Objects OpenAI defines (files, vector stores, responses, errors) take the `openai` SDK's types;
 * the rest are built from the object types core hands to the routes, so a renamed field breaks the
 * type check of the tests as well as the tests themselves.
 */

/** OpenAI's error envelope, the body of every 4xx/5xx answer. */
export interface ErrorBody {
  error: OpenAI.ErrorObject;
}

/** A paginated list (`object: 'list'`, `data`, `first_id`, `last_id`, `has_more`). */
export type ListBody<T> = ListPage<T>;

/** `GET /v1/account`. */
export type AccountBody = Pick<Account, 'id' | 'name' | 'balance'>;
/** `POST /v1/admin/accounts`: the account and its first key, shown once. */
export type CreatedAccountBody = AccountBody & { api_key: string };
/** `POST /v1/admin/accounts/{id}/keys`. */
export interface CreatedKeyBody {
  id: string;
  api_key: string;
}
/** `POST /v1/admin/accounts/{id}/credit`. */
export type CreditedBody = Pick<Account, 'id' | 'balance'>;
/** `GET /v1/admin/accounts`: each account with its keys' hints. */
export type AdminAccountsBody = ListPage<AccountWithKeys>;
/** `GET /v1/account/ledger`. */
export type LedgerBody = ListPage<LedgerEntry>;

/** `GET /v1/usage`: one row per day and model. */
export interface UsageBody {
  object: 'list';
  data: UsageRow[];
}

/** An agent as the API answers it: the owning account stays internal. */
export type AgentBody = Omit<AgentObject, 'account_id'>;
/** `POST /v1/agents`, `GET|POST /v1/agents/{id}`, `POST /v1/agents/{id}/publish`. */
export interface AgentEnvelope {
  agent: AgentBody;
}
/** `POST /v1/agents/{id}/run` (without streaming) and `GET /v1/agents/{id}/runs/{run_id}`. */
export interface RunEnvelope {
  run: AgentRunObject;
}
/** `GET /v1/agents/{id}/runs`: runs without their steps. */
export type RunsBody = ListPage<AgentRunSummary>;
/** `GET /v1/agents/{id}/versions/{version}`: one published version with its workflow. */
export interface VersionEnvelope {
  version: AgentVersionObject & { workflow: Workflow };
}
/** `GET /v1/agents/{id}/versions`. */
export type VersionsBody = ListPage<AgentVersionObject>;
/** `POST /v1/agents/tools`. */
export type ToolsPreviewBody = WorkflowToolsPreview;

/** The JSON Schema of a data tool's input, as far as the tests read it (core types it as a plain record). */
export interface ToolInputSchema {
  type: 'object';
  properties: Record<string, { type: string; default?: unknown; minimum?: number; maximum?: number }>;
  required?: string[];
  additionalProperties: false;
}
/** One entry of the data tools' catalog (`GET /v1/tools`, `GET /v1/tools/{tool}`). */
export type ToolCatalogEntry = Omit<ToolDefinition, 'input_schema'> & {
  object: 'tool';
  input_schema: ToolInputSchema;
  available: boolean;
};
/** `POST /v1/tools/{tool}`: 202 with where to poll. */
export interface StartedJobBody {
  data: Pick<ToolJob, 'job_id' | 'status' | 'poll_url' | 'estimated_max_cost'>;
}
/** `GET /v1/tools/jobs/{id}`. */
export interface JobEnvelope {
  data: ToolJob;
}
