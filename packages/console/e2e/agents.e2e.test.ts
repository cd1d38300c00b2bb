import { createFakeOpenAIUpstream, createTestServer, type FakeUpstream, respond, type TestServer } from '@fathom/core/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestFathom } from '@fathom/http/test';
import { launchBrowser, openPage, pageText, screenshot, signIn, startConsoleServer } from './browser';

const SECRET = 'sk-orders-e2e-7d41c9';

/**
 * Builds an agent from an empty canvas in real Chromium: nodes, edges (one dragged between handles),
 * a Webhook card with bearer auth against a local orders API, a server validation error shown on its
 * field, the live tool preview, publish, a streamed run with tool_use/tool_result, and no secret on
 * the page afterwards.
 */
describe('console: agent canvas', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let api: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    api = await createTestServer({
      'GET /api/orders/A-100': (request, response) => {
        if (request.headers.authorization !== `Bearer ${SECRET}`) return respond.json(response, 401, { error: 'bad token' });
        respond.json(response, 200, { id: 'A-100', status: 'shipped', carrier: 'DHL' });
      },
    });
    // The model asks for the order in the message, then answers from the tool result.
    upstream = await createFakeOpenAIUpstream((request) => {
      const last = request.messages.at(-1);
      if (last.role === 'tool') return { content: `Your order is ${JSON.parse(last.content).status}.` };
      return { toolCalls: [{ id: 'call_1', name: 'get_order', arguments: { order_id: 'A-100' } }] };
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
    await api?.close();
  });

  it('builds, validates, publishes and runs an agent with a Webhook card, never showing the card secret back', async () => {
    await signIn(page, server.url, server.apiKey);
    await expect(page.getByText('No agents yet')).toBeTruthy();
    await page.getByRole('link', { name: 'New agent' }).click();
    await page.getByText('The canvas is empty').waitFor();
    await page.getByLabel('Agent name').first().fill('Orders helper');

    // Nodes: start (with a required variable), agent, webhook card, end.
    const toolbar = page.getByRole('toolbar', { name: 'Add nodes' });
    await toolbar.getByRole('button', { name: 'Add start node' }).click();
    await page.getByRole('button', { name: 'Add variable' }).click();
    await page.getByLabel('Variable 1 name').fill('customer_name');
    await page.getByLabel('Variable 1 required').check();
    await toolbar.getByRole('button', { name: 'Add agent node' }).click();
    const panel = page.getByRole('tabpanel');
    await panel.getByLabel('Model').fill('fake/fake-model');
    await panel.getByLabel('System prompt').fill('You help {{customer_name}} with orders.');
    await toolbar.getByRole('button', { name: 'Add end node' }).click();
    await toolbar.getByRole('button', { name: 'Add webhook node' }).click();
    await page.getByRole('group', { name: 'webhook node Webhook 1' }).waitFor();

    // The card: base URL, bearer auth, one route with a path parameter; whenToUse left empty for now.
    await panel.getByLabel('Card name').fill('Orders API');
    await panel.getByLabel('Base URL').fill(`${api.url}/api/`);
    await panel.getByLabel('Auth type').selectOption('bearer');
    await panel.getByLabel('Bearer token').fill(SECRET);
    await panel.getByRole('button', { name: 'Add route' }).click();
    await panel.getByLabel('Route 1 name').fill('get_order');
    await panel.getByLabel('Route 1 description').fill('Fetch one order with its status.');
    await panel.getByLabel('Route 1 path').fill('/orders/{{order_id}}');
    await panel.getByRole('button', { name: 'Add parameter to route 1' }).click();
    await panel.getByLabel('Route 1 parameter 1 name').fill('order_id');
    await panel.getByLabel('Route 1 parameter 1 description').fill('The order id');
    await panel.getByLabel('Route 1 parameter 1 example').fill('A-100');

    // Edges: the card is dragged onto the agent's free slot on the canvas; the flow is wired by keyboard.
    await page.getByLabel('Orders API card output').dragTo(page.getByLabel('Agent 1 slot-0'));
    await page.getByLabel('Agent 1 slot-1').waitFor();
    await page.getByRole('group', { name: 'start node Start' }).click();
    await panel.getByLabel('Connect to').selectOption({ label: 'Agent 1 (agent)' });
    await panel.getByRole('button', { name: 'Connect', exact: true }).click();
    await page.getByRole('group', { name: 'agent node Agent 1' }).click();
    await panel.getByLabel('Connect to').selectOption({ label: 'End (end)' });
    await panel.getByRole('button', { name: 'Connect', exact: true }).click();
    await panel.getByText('Orders API → Agent 1 (slot-0)').waitFor();

    // The server refuses the route without whenToUse: the error lands on the card and on the field.
    await page.getByRole('button', { name: 'Save draft' }).click();
    const fieldError = panel.getByRole('alert').filter({ hasText: 'whenToUse' });
    await fieldError.waitFor();
    await expect(panel.getByLabel('Route 1 when to use').getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByRole('group', { name: 'webhook node Orders API' }).getByRole('alert').isVisible()).resolves.toBe(true);
    await panel.getByLabel('Route 1 when to use').fill('When the customer asks where an order is.');

    // The live preview shows the compiled tool, as the server's compiler builds it.
    await page.getByRole('tab', { name: 'Tools' }).click();
    const tools = page.getByRole('region', { name: 'Tools of Agent 1' });
    await tools.getByText('get_order').click();
    await tools.getByText('WHEN TO USE: When the customer asks where an order is.').waitFor();
    await tools.getByText('"The order id Exemplo: A-100"').waitFor();

    await page.getByRole('button', { name: 'Save draft' }).click();
    await page.getByText('Draft', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published v1').waitFor();
    await expect.poll(() => page.getByText('Unpublished changes').count()).toBe(0);
    await screenshot(page, 'agent-canvas');

    // Run: the message, the start variable, and the streamed timeline.
    await page.getByRole('tab', { name: 'Run' }).click();
    await panel.getByLabel('Run message').fill('Where is my order A-100?');
    await panel.getByLabel('customer_name (required)').fill('Ann');
    await panel.getByRole('button', { name: 'Run', exact: true }).click();
    const timeline = panel.getByRole('list', { name: 'Run timeline' });
    await timeline.getByText('run.completed').waitFor();
    const events = await timeline.getByRole('listitem').allInnerTexts();
    expect(events[0]).toContain('run.started');
    expect(events.find((text) => text.startsWith('tool_use'))).toMatch(/get_order[\s\S]*"order_id": "A-100"/);
    expect(events.find((text) => text.startsWith('tool_result'))).toMatch(/get_order[\s\S]*"status": "shipped"/);
    expect(events.at(-1)).toContain('Your order is shipped.');
    // Each step says when it came, and a tool result how long its call took.
    for (const text of events) expect(text).toMatch(/\+\d+(\.\d+)? m?s/);
    expect(events.find((text) => text.startsWith('tool_result'))).toMatch(/took \d+(\.\d+)? m?s/);
    expect(upstream.requests[0].messages[0]).toEqual({ role: 'system', content: 'You help Ann with orders.' });
    await screenshot(page, 'agent-run');

    // The past run with its steps.
    await panel.getByRole('button', { name: /v1 · completed · Where is my order/ }).click();
    await panel.getByText('tool call get_order').waitFor();

    // The secret was typed once, went to the server, and is nowhere on the page now.
    await page.getByRole('tab', { name: 'Node' }).click();
    await page.getByRole('group', { name: 'webhook node Orders API' }).click();
    await panel.getByText('A secret is saved (hidden)').waitFor();
    expect(await pageText(page)).not.toContain(SECRET);
    await page.reload();
    await page.getByRole('group', { name: 'webhook node Orders API' }).waitFor();
    expect(await pageText(page)).not.toContain(SECRET);
    expect(problems).toEqual([]);
  });

  it('keeps the JSON view and the canvas in sync both ways, moves and deletes nodes on the canvas, and lists versions', async () => {
    await page.getByRole('tab', { name: 'JSON' }).click();
    const json = page.getByLabel('Workflow JSON');
    const text = await json.inputValue();
    expect(text).toContain('"********"');
    const workflow = JSON.parse(text);
    workflow.nodes.find((node: any) => node.type === 'agent').data.name = 'Order desk';
    workflow.nodes.find((node: any) => node.type === 'webhook').data.config.defaultHeaders = { 'X-Client': 'console' };
    await json.fill(JSON.stringify(workflow, null, 2));
    await page.getByRole('group', { name: 'agent node Order desk' }).waitFor();
    await page.getByText('Unpublished changes').waitFor();

    // Canvas -> JSON: a node added on the canvas appears in the JSON at once.
    await page.getByRole('button', { name: 'Add end node' }).click();
    await page.getByRole('tab', { name: 'JSON' }).click();
    expect(await page.getByLabel('Workflow JSON').inputValue()).toContain('"id": "end-2"');
    await page.getByRole('tab', { name: 'Node' }).click();
    await page.getByRole('tabpanel').getByLabel('End label').fill('Extra end');

    // Move: dragging the node on the canvas changes its position in the workflow.
    const extra = page.getByRole('group', { name: 'end node Extra end' });
    const positionOf = async () => {
      await page.getByRole('tab', { name: 'JSON' }).click();
      const nodes = JSON.parse(await page.getByLabel('Workflow JSON').inputValue()).nodes;
      await page.getByRole('tab', { name: 'Node' }).click();
      return nodes.find((node: any) => node.id === 'end-2').position;
    };
    const before = await positionOf();
    const box = (await extra.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 120, box.y + 10, { steps: 8 });
    await page.mouse.up();
    const after = await positionOf();
    expect(after.x).toBeLessThan(before.x - 50);
    expect(after.y).toBeCloseTo(before.y, -1);

    // Delete with the keyboard: the selected node goes, with nothing else.
    await extra.click();
    await page.keyboard.press('Delete');
    await extra.waitFor({ state: 'detached' });
    await page.getByRole('tab', { name: 'JSON' }).click();
    expect(await page.getByLabel('Workflow JSON').inputValue()).not.toContain('"id": "end-2"');
    await page.getByRole('group', { name: 'end node End' }).waitFor();

    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published v2').waitFor();
    await page.getByRole('tab', { name: 'Versions' }).click();
    const versions = page.getByRole('list', { name: 'Versions' });
    await expect.poll(() => versions.getByRole('listitem').count()).toBe(2);
    await page.getByRole('button', { name: 'View version 2' }).click();
    await page.getByText('"X-Client": "console"').waitFor();
    // The saved card kept its secret: a new run still authenticates to the orders API.
    const agentId = decodeURIComponent(page.url().split('#/agents/')[1]!);
    const run = await server.request(`/v1/agents/${agentId}/run`, {
      method: 'POST',
      json: { message: 'A-100?', variables: { customer_name: 'Bo' } },
    });
    expect((await run.json()).run.output).toBe('Your order is shipped.');
    await screenshot(page, 'agent-versions');
  });
});
