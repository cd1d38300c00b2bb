import { createFakeOpenAIUpstream, type FakeUpstream, startEdgeMcpServer, type TestMcpServer } from '@fathom/core/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestFathom } from '../../http/test/harness';
import { launchBrowser, openPage, pageText, screenshot, signIn, startConsoleServer } from './browser';

const TOKEN = 'sk-mcp-e2e-3b8f21';

/**
 * The MCP card in real Chromium: added to an agent from the toolbar, its validation message on the
 * node, its server (a real MCP server built with the SDK on 127.0.0.1) listed with "List tools" before
 * and after saving (masked token), published and run with the server's tool, and the token never
 * on the page afterwards.
 */
describe('console: the MCP card', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let mcp: TestMcpServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    mcp = await startEdgeMcpServer();
    upstream = await createFakeOpenAIUpstream((request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { content: `The server said: ${last.content}` };
      return { toolCalls: [{ id: 'call_1', name: 'echo', arguments: { text: 'hello from the canvas' } }] };
    });
    server = await startConsoleServer({
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }), AGENT_EGRESS_ALLOW: '127.0.0.1' },
    });
    browser = await launchBrowser();
    ({ page, problems } = await openPage(browser.context));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close({ keepData: false });
    await upstream?.close();
    await mcp?.close();
  });

  it('adds an MCP card, lists its tools, publishes and runs the agent with one of them', async () => {
    await signIn(page, server.url, server.apiKey);
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByText('The canvas is empty').waitFor();
    await page.getByLabel('Agent name').first().fill('Docs helper');

    const toolbar = page.getByRole('toolbar', { name: 'Add nodes' });
    const panel = page.getByRole('tabpanel');
    await toolbar.getByRole('button', { name: 'Add start node' }).click();
    await toolbar.getByRole('button', { name: 'Add agent node' }).click();
    await panel.getByLabel('Model').fill('fake/fake-model');
    await toolbar.getByRole('button', { name: 'Add end node' }).click();
    await toolbar.getByRole('button', { name: 'Add mcp node' }).click();

    // A card without a server: the live validation puts mcp_no_server on the node and its field.
    const card = page.getByRole('group', { name: 'mcp node MCP 1' });
    await card.getByRole('alert').filter({ hasText: 'has no serverUrl' }).waitFor();
    await expect(panel.getByLabel('Server URL').getAttribute('aria-invalid')).resolves.toBe('true');

    await panel.getByLabel('Card name').fill('Docs server');
    await panel.getByLabel('Server URL').fill(mcp.url);
    await panel.getByLabel('Auth type').selectOption('bearer');
    await panel.getByLabel('Bearer token').fill(TOKEN);
    await panel.getByLabel('Allowed tools').fill('echo, fail');
    await panel.getByLabel('Attach card to agent').selectOption({ label: 'Agent 1 (agent)' });
    await panel.getByRole('button', { name: 'Connect', exact: true }).click();
    await panel.getByText('Docs server → Agent 1 (slot-0)').waitFor();
    await page.getByRole('group', { name: 'start node Start' }).click();
    await panel.getByLabel('Connect to').selectOption({ label: 'Agent 1 (agent)' });
    await panel.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('group', { name: 'agent node Agent 1' }).click();
    await panel.getByLabel('Connect to').selectOption({ label: 'End (end)' });
    await panel.getByRole('button', { name: 'Connect', exact: true }).click();

    // "List tools": the server's own preview route contacts the MCP server and shows what the model gets.
    await page.getByRole('group', { name: 'mcp node Docs server' }).click();
    await panel.getByRole('button', { name: 'List tools' }).click();
    const listed = panel.getByRole('region', { name: 'MCP tools seen by Agent 1' });
    await listed.getByText('echo', { exact: true }).waitFor();
    expect(await listed.getByRole('listitem').allInnerTexts()).toEqual([expect.stringContaining('echo'), expect.stringContaining('fail')]);
    await screenshot(page, 'mcp-card-tools');

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft', { exact: true }).waitFor();
    // After the save the page holds only the mask; listing again uses the saved token on the server.
    await page.getByRole('group', { name: 'mcp node Docs server' }).click();
    await panel.getByText('A secret is saved (hidden)').waitFor();
    const before = mcp.requests.length;
    await panel.getByRole('button', { name: 'List tools' }).click();
    await panel.getByRole('region', { name: 'MCP tools seen by Agent 1' }).getByText('echo', { exact: true }).waitFor();
    await expect.poll(() => mcp.requests.length).toBeGreaterThanOrEqual(before);
    expect(mcp.requests.every((headers) => headers.authorization === `Bearer ${TOKEN}`)).toBe(true);

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published v1').waitFor();
    await page.getByRole('tab', { name: 'Run' }).click();
    await panel.getByLabel('Run message').fill('Say hello');
    await panel.getByRole('button', { name: 'Run', exact: true }).click();
    const timeline = panel.getByRole('list', { name: 'Run timeline' });
    await timeline.getByText('run.completed').waitFor();
    const events = await timeline.getByRole('listitem').allInnerTexts();
    expect(events.find((text) => text.startsWith('tool_use'))).toMatch(/echo[\s\S]*"text": "hello from the canvas"/);
    expect(events.find((text) => text.startsWith('tool_result'))).toMatch(/echo[\s\S]*hello from the canvas/);
    expect(events.at(-1)).toContain('The server said: hello from the canvas');
    await screenshot(page, 'mcp-card-run');

    expect(await pageText(page)).not.toContain(TOKEN);
    await page.reload();
    await page.getByRole('group', { name: 'mcp node Docs server' }).waitFor();
    expect(await pageText(page)).not.toContain(TOKEN);
    expect(problems).toEqual([]);
  });
});
