import type { ToolJob } from '../jobs';
import { boundToolResult } from '../internal/tool-result';
import { delay } from '../transport';
import type { McpDataTool, McpDataTools } from './sources';
import { type McpTool, type McpToolContext, textResult } from './types';

export interface DataToolPolling {
  /** First wait between two reads of the job, ms; default 100. */
  firstMs?: number;
  /** Longest wait between two reads (each wait doubles up to it), ms; default 1000. */
  maxMs?: number;
  /** While the job's status does not change, a progress notification at most this often, ms; default 5000. */
  heartbeatMs?: number;
}

/**
 * One MCP tool per data tool the installation can run, under its catalog name and with its `input_schema`.
 * A call does what `POST /v1/tools/{tool}` does (same validation, same ceiling reserved, same cache and
 * billing), then follows the job in the database as `GET /v1/tools/jobs/{id}` does, whichever node runs
 * it, telling the client each status as an MCP progress notification, and answers the items.
 */
export function dataTools(dataTools: McpDataTools, polling: DataToolPolling = {}): McpTool[] {
  return dataTools
    .catalog()
    .filter((entry) => entry.available)
    .map((entry) => dataTool(dataTools, entry, polling));
}

function dataTool(dataTools: McpDataTools, entry: McpDataTool, polling: DataToolPolling): McpTool {
  return {
    definition: {
      name: entry.name,
      description: `${entry.description} Each call is a billed job: up to ${entry.estimated_max_cost} reserved, the actual cost charged.`,
      inputSchema: entry.input_schema as McpTool['definition']['inputSchema'],
      annotations: { readOnlyHint: true, openWorldHint: true },
    },
    async call(args, context) {
      const job = await dataTools.startJob(context.accountId, entry.name, args);
      const done = await follow(dataTools, job, context, polling);
      if (done.status === 'failed') {
        const reason = done.error ? `${done.error.message} (${done.error.code})` : 'it failed';
        return textResult(`Error: job ${done.id} of ${entry.name} failed: ${reason}. Nothing was charged.`, true);
      }
      const answer = { job_id: done.id, tool: done.tool, cost: done.cost, cached: done.cached, ...done.result };
      return { content: [{ type: 'text', text: boundToolResult(JSON.stringify(answer)) }], structuredContent: answer };
    },
  };
}

/** Reads the job until it ends, with a notification at each new status and, while it runs, now and then. */
async function follow(dataTools: McpDataTools, started: ToolJob, context: McpToolContext, polling: DataToolPolling): Promise<ToolJob> {
  const maxMs = polling.maxMs ?? 1000;
  const heartbeatMs = polling.heartbeatMs ?? 5000;
  const startedMs = Date.now();
  let waitMs = polling.firstMs ?? 100;
  let job = started;
  let told = job.status;
  let toldMs = startedMs;
  await context.progress(`Job ${job.id} ${job.status}: up to ${job.estimated_max_cost} reserved.`);
  while (job.status === 'queued' || job.status === 'running') {
    await delay(waitMs, context.signal);
    waitMs = Math.min(waitMs * 2, maxMs);
    job = await dataTools.getJob(context.accountId, job.id);
    const now = Date.now();
    if (job.status !== told || now - toldMs >= heartbeatMs) {
      told = job.status;
      toldMs = now;
      await context.progress(`Job ${job.id} ${job.status} (${Math.round((now - startedMs) / 1000)} s).`);
    }
  }
  return job;
}
