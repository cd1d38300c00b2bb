import { afterAll, describe, expect, it } from 'vitest';
import { Accounts, accountsSchema } from '../accounts';
import { closeTestPostgres, openTestDatabase, testBackends } from '../test/postgres';
import type { StoredItem } from './items';
import { checkMcpApprovals, claimApprovals, mcpApprovalsSchema } from './mcp-approvals';
import { readMcpTool } from './mcp-request';

afterAll(closeTestPostgres);

const tool = readMcpTool({ type: 'mcp', server_label: 'docs', server_url: 'https://mcp.example.com/mcp' }, 'tools[0]', undefined);
const request: StoredItem = { id: 'mcpr_1', type: 'mcp_approval_request', server_label: 'docs', name: 'echo', arguments: '{}' };
const answer: StoredItem = { id: 'mcpa_1', type: 'mcp_approval_response', approval_request_id: 'mcpr_1', approve: true };
const call: StoredItem = { id: 'mcp_1', type: 'mcp_call', server_label: 'docs', name: 'echo', approval_request_id: 'mcpr_1' };

describe('MCP approvals', () => {
  it('claims an approving answer of the input, and treats one followed by its mcp_call as history (never run again)', () => {
    expect(checkMcpApprovals([tool], [request, answer], 1)).toEqual([{ id: 'mcpr_1', param: 'input[0].approval_request_id' }]);
    // The Agents SDK sends the whole conversation back: request, answer and the call it led to.
    expect(checkMcpApprovals([tool], [request, answer, call], 0)).toEqual([]);
    // An answer after the call is a second answer.
    expect(() => checkMcpApprovals([tool], [request, call, answer], 2)).toThrow(/already answered/);
    expect(checkMcpApprovals([tool], [request, { ...answer, approve: false }], 1)).toEqual([]);
  });

  for (const backend of testBackends()) {
    it(`claims each approval once per account, all or none (${backend})`, async () => {
      const db = await openTestDatabase(backend, [accountsSchema, mcpApprovalsSchema]);
      try {
        const accounts = new Accounts(db);
        const a = (await accounts.create({ name: 'a' })).id;
        const b = (await accounts.create({ name: 'b' })).id;
        const claim = (account: string, ids: string[]) =>
          claimApprovals(
            db,
            account,
            'resp_x',
            ids.map((id, at) => ({ id, param: `input[${at}].approval_request_id` })),
          );
        await claim(a, ['mcpr_1']);
        await expect(claim(a, ['mcpr_2', 'mcpr_1'])).rejects.toMatchObject({ param: 'input[1].approval_request_id' });
        // mcpr_2 was not kept: the failed request claimed nothing.
        await claim(a, ['mcpr_2']);
        await claim(b, ['mcpr_1']);
      } finally {
        await db.close();
      }
    });
  }
});
