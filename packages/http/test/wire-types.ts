import type {
  AccountBalance,
  AccountCreated,
  AccountCredited,
  AccountsPage,
  Agent,
  AgentRun,
  AgentRunSummary,
  AgentVersion,
  AgentVersionWithWorkflow,
  ApiKeyCreated,
  DataTool,
  LedgerPage,
  ListPage,
  ToolJob,
  ToolJobStarted,
  UsageRow,
  WorkflowToolsPreview,
} from '@fathom/core';
import type OpenAI from 'openai';

/**
 * The JSON bodies of Fathom's own routes as the http tests read them (`json<T>()` in the harness).
 * Objects OpenAI defines (files, vector stores, responses, errors) take the `openai` SDK's types;
 * the rest are the types of the routes' declarations in core, so a renamed field breaks the type
 * check of the tests as well as the tests themselves.
 */

/** OpenAI's error envelope, the body of every 4xx/5xx answer. */
export interface ErrorBody {
  error: OpenAI.ErrorObject;
}

/** A paginated list (`object: 'list'`, `data`, `first_id`, `last_id`, `has_more`). */
export type ListBody<T> = ListPage<T>;

/** `GET /v1/account`. */
export type AccountBody = AccountBalance;
/** `POST /v1/admin/accounts`: the account and its first key, shown once. */
export type CreatedAccountBody = AccountCreated;
/** `POST /v1/admin/accounts/{id}/keys`. */
export type CreatedKeyBody = ApiKeyCreated;
/** `POST /v1/admin/accounts/{id}/credit`. */
export type CreditedBody = AccountCredited;
/** `GET /v1/admin/accounts`: each account with its keys' hints. */
export type AdminAccountsBody = AccountsPage;
/** `GET /v1/account/ledger`. */
export type LedgerBody = LedgerPage;

/** `GET /v1/usage`: one row per day and model. */
export interface UsageBody {
  object: 'list';
  data: UsageRow[];
}

/** An agent as the API answers it. */
export type AgentBody = Agent;
/** `POST /v1/agents`, `GET|POST /v1/agents/{id}`, `POST /v1/agents/{id}/publish`. */
export interface AgentEnvelope {
  agent: AgentBody;
}
/** `POST /v1/agents/{id}/run` (without streaming) and `GET /v1/agents/{id}/runs/{run_id}`. */
export interface RunEnvelope {
  run: AgentRun;
}
/** `GET /v1/agents/{id}/runs`: runs without their steps. */
export type RunsBody = ListPage<AgentRunSummary>;
/** `GET /v1/agents/{id}/versions/{version}`: one published version with its workflow. */
export interface VersionEnvelope {
  version: AgentVersionWithWorkflow;
}
/** `GET /v1/agents/{id}/versions`. */
export type VersionsBody = ListPage<AgentVersion>;
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
export type ToolCatalogEntry = Omit<DataTool, 'input_schema'> & { input_schema: ToolInputSchema };
/** `POST /v1/tools/{tool}`: 202 with where to poll. */
export type StartedJobBody = ToolJobStarted;
/** `GET /v1/tools/jobs/{id}`. */
export interface JobEnvelope {
  data: ToolJob;
}
