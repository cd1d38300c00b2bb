import { InvalidRequestError } from '../errors';
import { nowSeconds } from '../internal/ids';
import type { Schema, SqlClient } from '../storage';

/**
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
