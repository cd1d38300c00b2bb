import type { AgentRunEvent, StartVariable } from '../agents';
import type { FileObject, FilePage, VectorStorePage, VectorStoreFilePage } from '../documents';
import type { ToolJob } from '../jobs';
import type { SearchHit, StoreSearchOptions } from '../vector';

/**
 * What Fathom's MCP server reads and runs, as contracts: the MCP code calls nothing else of the other
 * capabilities, and `fathom-sources.ts` is the one file that maps them onto Fathom's classes.
 * Every method takes the account id first; another account's ids answer 404 (`NotFoundError`).
 */
export interface McpSources {
  documents: McpDocuments;
  dataTools: McpDataTools;
  agents: McpAgents;
}

/** Files, vector stores and their search. */
export interface McpDocuments {
  /** The search of `POST /v1/vector_stores/{id}/search`, over several stores of the account at once. */
  search(accountId: string, storeIds: string[], options: StoreSearchOptions): Promise<SearchHit[]>;
  listVectorStores(accountId: string, page: PageRequest): Promise<VectorStorePage>;
  listFiles(accountId: string, page: PageRequest): Promise<FilePage>;
  retrieveFile(accountId: string, fileId: string): Promise<FileObject>;
  listStoreFiles(accountId: string, storeId: string, page: PageRequest): Promise<VectorStoreFilePage>;
  /** A file's text as Fathom extracts it for search (PDF, DOCX, HTML, text, code…). */
  fileText(accountId: string, fileId: string): Promise<string>;
  /** A store file's parsed text, as `GET /v1/vector_stores/{id}/files/{file_id}/content` gives it. */
  storeFileText(accountId: string, storeId: string, fileId: string): Promise<string>;
}

/** One page of a list, oldest first from `after`. */
export interface PageRequest {
  limit: number;
  after?: string;
}

/** A data tool of the catalog, as `GET /v1/tools` shows it. */
export interface McpDataTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  estimated_max_cost: number;
  /** False when the installation has no source configured for it. */
  available: boolean;
}

/** The data tools and their jobs, called exactly as `POST /v1/tools/{tool}` and `GET /v1/tools/jobs/{id}` call them. */
export interface McpDataTools {
  catalog(): McpDataTool[];
  /** Validates, reserves the ceiling and queues the job (400, 402, 404, 503 as the route). */
  startJob(accountId: string, tool: string, input: Record<string, unknown>): Promise<ToolJob>;
  getJob(accountId: string, jobId: string): Promise<ToolJob>;
}

/** A published agent, as the MCP tools name it. */
export interface PublishedAgent {
  id: string;
  name: string;
  version: number;
}

/** A Webhook route of a published agent as a tool: what its MCP client sees, and how to call it. */
export interface McpRouteTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  /** Runs the route with the stored card (credentials injected here, never shown); answers the text a model would get. */
  run(args: Record<string, unknown>, signal: AbortSignal): Promise<string>;
}

/** Published agents: their list, their runs, and (one agent's endpoint) their Webhook routes. */
export interface McpAgents {
  /** The account's published agents, oldest first. */
  listPublished(accountId: string): Promise<PublishedAgent[]>;
  /** The start variables of a published version. */
  startVariables(accountId: string, agentId: string, version: number): Promise<StartVariable[]>;
  /** Starts a run of the published version (400 naming missing variables, 409 when unpublished) and yields its events. */
  run(
    accountId: string,
    agentId: string,
    input: { message: string; variables: Record<string, unknown> },
    signal: AbortSignal,
  ): Promise<AsyncIterable<AgentRunEvent>>;
  /** One published agent with its start variables and the Webhook routes its agent nodes see. */
  publishedTools(accountId: string, agentId: string): Promise<PublishedAgent & { variables: StartVariable[]; tools: McpRouteTool[] }>;
}
