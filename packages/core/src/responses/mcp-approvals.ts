import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { Schema, SqlClient } from '../storage';
import type { InputItem, StoredItem } from './items';
import type { McpToolSettings } from './mcp-request';

/**
 * MCP approvals: the client's `mcp_approval_response` items checked against the context, and the
 * approving ones claimed in the database.
 *
 * Answered MCP approvals, one row per account and `approval_request_id`: the request that carries an
 * approving `mcp_approval_response` inserts its row before the call runs, so of two requests sent at the
 * same moment with the same answer exactly one runs the call (the other answers 400). Kept after the
 * response is deleted: the call ran, the approval stays spent. Its own component, so its version
 * numbers never meet the `responses` migrations.
 */
const table = (bigint: string) => `
CREATE TABLE mcp_approval_answers (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  approval_request_id TEXT NOT NULL,
  response_id TEXT NOT NULL,
  created_at ${bigint} NOT NULL,
  PRIMARY KEY (account_id, approval_request_id)
);`;

export const mcpApprovalsSchema: Schema = {
  component: 'mcp_approvals',
  sqlite: [table('INTEGER')],
  postgres: [table('BIGINT')],
};

/** An approving answer of a request: the approval it answers and the field that carries it (`input[i].approval_request_id`). */
export interface ApprovalClaim {
  id: string;
  param: string;
}

/**
 * Claims the approvals a request answers, all or none (one transaction; pass `tx` to join the caller's):
 * a row another request inserted first is a 400 naming the field, and nothing of this request is kept.
 */
export async function claimApprovals(
  db: SqlClient,
  accountId: string,
  responseId: string,
  claims: readonly ApprovalClaim[],
): Promise<void> {
  if (!claims.length) return;
  await db.transaction(async (tx) => {
    for (const claim of claims) {
      const inserted = await tx.run(
        `INSERT INTO mcp_approval_answers (account_id, approval_request_id, response_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (account_id, approval_request_id) DO NOTHING`,
        [accountId, claim.id, responseId, nowSeconds()],
      );
      if (inserted.changes === 0) {
        throw new InvalidRequestError(
          `Invalid '${claim.param}': mcp_approval_request '${claim.id}' was already answered by another request, which runs the call; it runs once.`,
          claim.param,
        );
      }
    }
  });
}

/**
 * The request's `mcp_approval_response` items, checked: each names an `mcp_approval_request` of the
 * context that no earlier item answered (nor an earlier one of this input), of a server in `tools`.
 * An answer followed in the context by the `mcp_call` it led to is history (a client sending the whole
 * conversation back as input): it is not run again.
 */
export function checkApprovals(
  settings: McpToolSettings[],
  items: readonly StoredItem[],
  firstInput: number,
): Array<{ request: StoredItem; approve: boolean; param: string }> {
  const requests = new Map<string, StoredItem>();
  const answered = new Set<string>();
  const lastCall = new Map<string, number>();
  items.forEach((item, index) => {
    if (item.type === 'mcp_call' && typeof item.approval_request_id === 'string') lastCall.set(item.approval_request_id, index);
  });
  const out: Array<{ request: StoredItem; approve: boolean; param: string }> = [];
  items.forEach((item, index) => {
    if (item.type === 'mcp_approval_request') requests.set(item.id, item);
    if (item.type === 'mcp_call' && typeof item.approval_request_id === 'string') answered.add(item.approval_request_id);
    if (item.type !== 'mcp_approval_response') return;
    const id = String(item.approval_request_id);
    if (index < firstInput || (lastCall.get(id) ?? -1) > index) {
      answered.add(id);
      return;
    }
    const param = `input[${index - firstInput}].approval_request_id`;
    const request = requests.get(id);
    if (!request) {
      throw new InvalidRequestError(
        `Invalid '${param}': no mcp_approval_request '${id}' in this response's context (previous_response_id or conversation).`,
        param,
      );
    }
    if (answered.has(id)) throw new InvalidRequestError(`Invalid '${param}': mcp_approval_request '${id}' was already answered.`, param);
    if (!settings.some((each) => each.serverLabel === request.server_label)) {
      throw new InvalidRequestError(
        `Invalid '${param}': the request has no mcp tool with server_label '${String(request.server_label)}' to run the approved call.`,
        param,
      );
    }
    answered.add(id);
    out.push({ request, approve: item.approve === true, param });
  });
  return out;
}

/** Whether an input carries MCP approval answers (they are checked, and claimed, before a response runs). */
export function hasApprovalResponses(input: readonly InputItem[]): boolean {
  return input.some((item) => item.type === 'mcp_approval_response');
}

/**
 * Checks approvals without running anything; answers the approving ones to claim (`claimApprovals`)
 * before the response runs, so two requests with the same answer cannot both run the call.
 */
export function checkMcpApprovals(settings: McpToolSettings[], items: readonly StoredItem[], firstInput: number): ApprovalClaim[] {
  return checkApprovals(settings, items, firstInput)
    .filter((answer) => answer.approve)
    .map((answer) => ({ id: answer.request.id, param: answer.param }));
}
