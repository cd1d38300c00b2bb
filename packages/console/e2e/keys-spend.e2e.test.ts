import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type { TestFathom } from '@fathom/http/test';
import OpenAI from 'openai';
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, openPage, pageText, screenshot, signIn, startConsoleServer } from './browser';

// 1 and 2 currency units per million tokens (the mini model a tenth of that); each call is 1,000 + 500 tokens.
const PRICES = {
  'fake/fake-model': { input_cost_per_token: 0.000001, output_cost_per_token: 0.000002, max_output_tokens: 1000 },
  'fake/fake-model-mini': { input_cost_per_token: 1e-7, output_cost_per_token: 2e-7, max_output_tokens: 1000 },
};

/** Pixels of a canvas painted in a colour close to `rgb` (the series colours of the chart palette). */
async function pixelsOf(chart: Locator, rgb: [number, number, number]): Promise<number> {
  return chart.locator('canvas').evaluate((canvas: HTMLCanvasElement, [r, g, b]) => {
    const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3]! > 0 && Math.abs(data[i]! - r) < 40 && Math.abs(data[i + 1]! - g) < 40 && Math.abs(data[i + 2]! - b) < 40) count++;
    }
    return count;
  }, rgb);
}

/** The keys page, the spend chart (stacked by model or key, with a key's budget line), tokens per key, top keys, latency and errors. */
describe('console: API keys, spend and latency', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];
  let secret = '';

  beforeAll(async () => {
    // The mini model answers after 150 ms, the other at once: two latencies far apart.
    // `broken-model` fails upstream (Fathom answers 502).
    upstream = await createFakeOpenAIUpstream((request) =>
      request.model === 'broken-model'
        ? { error: { status: 500 } }
        : {
            content: 'priced answer',
            usage: { prompt_tokens: 1000, completion_tokens: 500 },
            delayMs: request.model === 'fake-model-mini' ? 150 : 0,
          },
    );
    server = await startConsoleServer({
      env: {
        FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl, maxRetries: 0 } }),
        FATHOM_MODEL_PRICES: JSON.stringify(PRICES),
      },
    });
    browser = await launchBrowser();
    ({ page, problems } = await openPage(browser.context));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
    await signIn(page, server.url, server.apiKey);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close({ keepData: false });
    await upstream?.close();
  });

  it('creates a key with a daily budget and shows its secret once, in a dialog, with a copy button', async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    const keys = page.getByRole('table', { name: 'API keys' });
    await keys.getByText('(this session)').waitFor();
    await page.getByLabel('Key name').fill('ci-runner');
    await page.getByLabel('Budget').fill('0.05');
    await page.getByLabel('per', { exact: true }).selectOption({ label: 'day' });
    await page.getByLabel('Models').fill('fake/*');
    // Restricted: chat (models: write) and reading its usage, nothing else.
    await page.getByLabel('Restrict to the levels below').check();
    for (const family of ['responses', 'assistants', 'files', 'vector_stores', 'embeddings', 'tools', 'agents', 'batches', 'keys']) {
      await page.getByLabel(family, { exact: true }).selectOption('none');
    }
    await page.getByLabel('usage', { exact: true }).selectOption('read');
    await page.getByRole('button', { name: 'Create key' }).click();

    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    secret = (await dialog.locator('code.secret').innerText()).trim();
    expect(secret).toMatch(/^fth_\w{40}$/);
    await dialog.getByRole('button', { name: 'Copy' }).click();
    await dialog.getByRole('button', { name: 'Copied' }).waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(secret);
    await dialog.getByRole('button', { name: 'Done' }).click();
    await dialog.waitFor({ state: 'hidden' });
    // Gone from the page, the form and the storage once the dialog closed; the list shows its hint only.
    expect(await pageText(page)).not.toContain(secret);
    expect(await page.evaluate(() => JSON.stringify(sessionStorage) + JSON.stringify(localStorage))).not.toContain(secret);
    const row = keys.getByRole('row').filter({ hasText: 'ci-runner' });
    await row.getByText(`fth_…${secret.slice(-4)}`).waitFor();
    expect(await row.innerText()).toContain('fake/*');
    expect(await row.innerText()).toContain('models: write, usage: read');
    // The key got exactly those rights.
    expect((await server.request('/v1/files', { apiKey: secret })).status).toBe(403);
    expect(await row.innerText()).toMatch(/0\.00 \/ 0\.05 per 1d/);
  });

  it("shows the key's spend rise after calls made with it, then draws spend per day stacked by model and by key, with its budget line", async () => {
    const ci = new OpenAI({ apiKey: secret, baseURL: server.baseURL, maxRetries: 0 });
    // 3 calls with the new key (0.002 each) and 2 of the mini model with the session's key (0.0002 each).
    for (let i = 0; i < 3; i++) await ci.chat.completions.create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }] });
    for (let i = 0; i < 2; i++) {
      await server.client.chat.completions.create({ model: 'fake/fake-model-mini', messages: [{ role: 'user', content: 'hi' }] });
    }

    await page.reload();
    const row = page.getByRole('table', { name: 'API keys' }).getByRole('row').filter({ hasText: 'ci-runner' });
    await row.getByText('0.01 / 0.05 per 1d').waitFor();
    expect(await row.getByRole('meter').getAttribute('value')).toBe('0.006');
    await screenshot(page, 'keys');

    await page.getByRole('link', { name: 'Usage' }).click();
    const spend = page.getByRole('region', { name: 'Spend' });
    const chart = spend.getByRole('img', { name: 'Cost per day, by model' });
    await chart.locator('canvas').waitFor();
    const legend = await chart.locator('.u-legend').innerText();
    expect(legend).toContain('fake/fake-model');
    expect(legend).toContain('fake/fake-model-mini');
    // The larger series (blue) and the smaller (red) are both painted as bars.
    expect(await pixelsOf(chart, [37, 99, 235])).toBeGreaterThan(50);
    expect(await pixelsOf(chart, [220, 38, 38])).toBeGreaterThan(5);
    const table = spend.getByRole('table', { name: 'Cost per day, model and key' });
    await table.getByRole('row').filter({ hasText: 'ci-runner' }).getByRole('cell', { name: '0.006', exact: true }).waitFor();
    expect(await spend.getByText('Total:').innerText()).toContain('0.0064');

    await spend.getByLabel('key', { exact: true }).check();
    const byKey = spend.getByRole('img', { name: 'Cost per day, by key' });
    await byKey.locator('canvas').waitFor();
    expect(await byKey.locator('.u-legend').innerText()).toContain('ci-runner');
    await spend.getByLabel('Key', { exact: true }).selectOption({ label: 'ci-runner' });
    await byKey.locator('.u-legend').getByText('Budget per day').waitFor();
    expect(await spend.getByText('Total:').innerText()).toContain('0.006');
    // The budget line is dark and dashed, over the bars.
    expect(await pixelsOf(byKey, [29, 36, 48])).toBeGreaterThan(50);
    await spend.scrollIntoViewIfNeeded();
    await screenshot(page, 'usage-spend');
  });

  it('draws model call latency per day, p50 and p95, for the busiest model or the one chosen', async () => {
    const latency = page.getByRole('region', { name: 'Latency' });
    const table = latency.getByRole('table', { name: 'Latency per day and model' });
    const mini = table.getByRole('row').filter({ hasText: 'fake/fake-model-mini' });
    await mini.waitFor();
    const [, , calls, p50] = await mini.getByRole('cell').allInnerTexts();
    expect(calls).toBe('2');
    expect(Number.parseInt(p50!, 10)).toBeGreaterThanOrEqual(140);
    // The busiest model (3 calls) first, then the one chosen.
    await latency.getByRole('img', { name: 'Call latency per day, fake/fake-model', exact: true }).locator('canvas').waitFor();
    await latency.getByLabel('Model', { exact: true }).selectOption('fake/fake-model-mini');
    const chart = latency.getByRole('img', { name: 'Call latency per day, fake/fake-model-mini' });
    await chart.locator('canvas').waitFor();
    const legend = await chart.locator('.u-legend').innerText();
    expect(legend).toContain('p50');
    expect(legend).toContain('p95');
    expect(await pixelsOf(chart, [37, 99, 235])).toBeGreaterThan(5);
    await latency.scrollIntoViewIfNeeded();
    await screenshot(page, 'usage-latency');
  });

  it('draws tokens per day stacked by key and ranks the keys by spend, naming them without their secrets', async () => {
    const keys = page.getByRole('region', { name: 'Usage by key' });
    const sessionHint = `fth_…${server.apiKey.slice(-4)}`;
    // ci-runner: 3 calls of 1,000 + 500 tokens (0.006); the session's key: 2 calls (0.0004).
    const top = keys.getByRole('table', { name: 'Top keys by spend' });
    await top.getByRole('row').filter({ hasText: 'ci-runner' }).waitFor();
    const ranked = (await top.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t'));
    expect(ranked).toEqual([
      ['1', 'ci-runner', `fth_…${secret.slice(-4)}`, '0.006', '4500', '3'],
      ['2', expect.stringMatching(/\S/), sessionHint, '0.0004', '3000', '2'],
    ]);
    const perDay = keys.getByRole('table', { name: 'Tokens per day and key' });
    const ci = perDay.getByRole('row').filter({ hasText: 'ci-runner' });
    expect((await ci.getByRole('cell').allInnerTexts()).slice(2)).toEqual(['3000', '1500']);
    const chart = keys.getByRole('img', { name: 'Tokens per day, by key' });
    await chart.locator('canvas').waitFor();
    expect(await chart.locator('.u-legend').innerText()).toContain('ci-runner');
    // Both keys' bars are painted: the larger (ci-runner, blue) and the smaller (red).
    expect(await pixelsOf(chart, [37, 99, 235])).toBeGreaterThan(50);
    expect(await pixelsOf(chart, [220, 38, 38])).toBeGreaterThan(5);
    await keys.getByLabel('output', { exact: true }).check();
    await keys.getByRole('img', { name: 'Output tokens per day, by key' }).locator('canvas').waitFor();
    expect(await pageText(page)).not.toContain(secret);
    await keys.scrollIntoViewIfNeeded();
    await screenshot(page, 'usage-keys');
  });

  it('counts the requests answered with an error per day, by 4xx/5xx and by code', async () => {
    // Scripted: two 400s (a bad parameter) and one 502 (the upstream fails); the first test's 403 (the restricted key on /v1/files) counts too.
    for (let i = 0; i < 2; i++) {
      await expect(
        server.client.chat.completions.create({ model: 'fake/fake-model', messages: [{ role: 'user', content: 'hi' }], temperature: 9 }),
      ).rejects.toThrow();
    }
    await expect(
      server.client.chat.completions.create({ model: 'fake/broken-model', messages: [{ role: 'user', content: 'hi' }] }),
    ).rejects.toThrow();
    await page.reload();
    const errors = page.getByRole('region', { name: 'Errors' });
    const table = errors.getByRole('table', { name: 'Errors per day, status and code' });
    await table.getByRole('row').filter({ hasText: '502' }).waitFor();
    const rows = (await table.getByRole('row').allInnerTexts()).slice(1).map((row) => row.split('\t').slice(1));
    expect(rows).toEqual([
      ['400', 'invalid_value', '2'],
      ['403', 'permission_denied', '1'],
      ['502', 'upstream_error', '1'],
    ]);
    expect(await errors.getByText('Total:').innerText()).toContain('4');
    const chart = errors.getByRole('img', { name: 'Errors per day, by status class' });
    await chart.locator('canvas').waitFor();
    const legend = await chart.locator('.u-legend').innerText();
    expect(legend).toContain('4xx');
    expect(legend).toContain('5xx');
    expect(await pixelsOf(chart, [37, 99, 235])).toBeGreaterThan(50);
    expect(await pixelsOf(chart, [220, 38, 38])).toBeGreaterThan(5);
    await errors.getByLabel('code', { exact: true }).check();
    const byCode = errors.getByRole('img', { name: 'Errors per day, by status and code' });
    await byCode.locator('canvas').waitFor();
    expect(await byCode.locator('.u-legend').innerText()).toContain('502 upstream_error');
    await errors.scrollIntoViewIfNeeded();
    await screenshot(page, 'usage-errors');
    expect(problems).toEqual([]);
  });

  it("edits the key's limits, then rotates and revokes it: the old secret stops working, then the key is gone", async () => {
    await page.getByRole('link', { name: 'Keys' }).click();
    const keys = page.getByRole('table', { name: 'API keys' });
    await keys.getByRole('button', { name: 'Edit ci-runner' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit ci-runner' });
    // The form holds the key's settings.
    expect(await edit.getByLabel('Models', { exact: true }).inputValue()).toBe('fake/*');
    expect(await edit.getByLabel('usage', { exact: true }).inputValue()).toBe('read');
    await edit.getByLabel('Requests per minute').fill('120');
    await screenshot(page, 'key-edit');
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'hidden' });
    await keys.getByRole('row').filter({ hasText: 'ci-runner' }).getByText('120 rpm').waitFor();
    const stored = (await (await server.request('/v1/account/keys')).json()) as {
      data: Array<{ name: string; rpm_limit: number; models: string[] }>;
    };
    expect(stored.data.find((key) => key.name === 'ci-runner')).toMatchObject({ rpm_limit: 120, models: ['fake/*'] });
    await keys.getByRole('button', { name: 'Rotate ci-runner' }).click();
    await page.getByRole('dialog', { name: 'Rotate ci-runner' }).getByRole('button', { name: 'Rotate key' }).click();
    const dialog = page.getByRole('dialog', { name: 'Your new API key' });
    const rotated = (await dialog.locator('code.secret').innerText()).trim();
    expect(rotated).not.toBe(secret);
    await dialog.getByRole('button', { name: 'Done' }).click();
    expect((await server.request('/v1/models', { apiKey: secret })).status).toBe(401);
    expect((await server.request('/v1/models', { apiKey: rotated })).status).toBe(200);

    await keys.getByRole('button', { name: 'Revoke ci-runner' }).click();
    await keys.getByRole('button', { name: 'Confirm revoking ci-runner' }).click();
    await keys.getByText('ci-runner').waitFor({ state: 'detached' });
    expect((await server.request('/v1/models', { apiKey: rotated })).status).toBe(401);
    expect(await pageText(page)).not.toContain(rotated);
    expect(problems).toEqual([]);
  });

  it('tells a key without the keys permission that it cannot manage keys', async () => {
    const created = await server.request('/v1/account/keys', { method: 'POST', json: { name: 'reader', permissions: { usage: 'read' } } });
    const reader = ((await created.json()) as { value: string }).value;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await signIn(page, server.url, reader);
    await page.getByRole('link', { name: 'Keys' }).click();
    await page.getByRole('alert').filter({ hasText: 'This key may not manage keys' }).waitFor();
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
