import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestFathom } from '@fathom/http/test';
import { launchBrowser, openPage, screenshot, signIn, startConsoleServer } from './browser';

/** Sign-in (wrong key, keyboard), the playground with streaming and file_search citations, usage, admin, narrow window. */
describe('console: sign-in, playground, usage and admin', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    // The model searches when it is given the file_search tool and no result yet, else answers.
    upstream = await createFakeOpenAIUpstream((request) => {
      const last = request.messages.at(-1);
      const canSearch = (request.tools ?? []).some((tool: any) => tool.function?.name === 'file_search');
      if (canSearch && last.role !== 'tool')
        return { toolCalls: [{ id: 'call_s', name: 'file_search', arguments: { query: 'expense reports' } }] };
      if (last.role === 'tool') return { content: 'Expense reports are due on the 5th.' };
      return { content: 'Hello from the fake model, streamed word by word.' };
    });
    server = await startConsoleServer({
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) },
    });
    browser = await launchBrowser();
    ({ page, problems } = await openPage(browser.context));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close({ keepData: false });
    await upstream?.close();
  });

  it('refuses a wrong key with the API message, signs in with the keyboard, and keeps the key out of URLs', async () => {
    await page.goto(`${server.url}/`);
    expect(new URL(page.url()).pathname).toBe('/console/');
    await page.getByLabel('API key').fill('fth_wrong_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'Incorrect API key provided.' }).waitFor();
    await screenshot(page, 'sign-in-error');

    await page.getByLabel('API key').fill('');
    await page.keyboard.press('Tab');
    await page.getByLabel('API key').focus();
    await page.keyboard.type(server.apiKey);
    await page.keyboard.press('Enter');
    await page.getByRole('navigation', { name: 'Pages' }).waitFor();
    expect(page.url()).not.toContain(server.apiKey);
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).toContain(server.apiKey);
    expect(await page.evaluate(() => JSON.stringify(localStorage))).not.toContain(server.apiKey);
  });

  it('chats with a configured model, streaming, and asks a vector store through file_search with citations', async () => {
    const file = await server.client.files.create({
      file: new File(['Expense reports are due on the 5th of each month.'], 'policy.md'),
      purpose: 'assistants',
    });
    const store = await server.client.vectorStores.create({ name: 'policies' });
    await server.client.vectorStores.files.createAndPoll(store.id, { file_id: file.id });

    await page.getByRole('link', { name: 'Playground' }).click();
    await expect.poll(() => page.getByLabel('Model').inputValue()).toBe('fake/fake-model');
    await page.getByLabel('Message').fill('Hi!');
    await page.getByRole('button', { name: 'Send' }).click();
    const conversation = page.getByRole('list', { name: 'Conversation' });
    await conversation.getByText('Hello from the fake model, streamed word by word.').waitFor();
    expect(upstream.requests.at(-1).stream).toBe(true);

    await page.getByLabel('Search a vector store (file_search)').selectOption({ label: 'policies' });
    await page.getByLabel('Message').fill('When are expense reports due?');
    await page.getByRole('button', { name: 'Send' }).click();
    await conversation.getByText('Expense reports are due on the 5th.', { exact: true }).waitFor();
    const citations = page.getByRole('list', { name: 'Citations' });
    await expect(citations.innerText()).resolves.toMatch(/policy\.md score \d\.\d{3}[\s\S]*due on the 5th of each month/);
    await screenshot(page, 'playground');
  });

  it('shows token usage per day and model, and works at a narrow width', async () => {
    await page.getByRole('link', { name: 'Usage' }).click();
    const usage = page.getByRole('table', { name: 'Usage per day and model' });
    await usage.getByRole('cell', { name: 'fake/fake-model' }).first().waitFor();
    // The same figures as charts: a line per model, named in the legend, drawn in the model's colour.
    const tokens = page.getByRole('img', { name: 'Tokens per day, by model' });
    await tokens.locator('canvas').waitFor();
    expect(await tokens.locator('.u-legend').innerText()).toContain('fake/fake-model');
    const painted = await tokens.locator('canvas').evaluate((canvas: HTMLCanvasElement) => {
      const pixels = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let blue = 0;
      for (let i = 0; i < pixels.length; i += 4) if (pixels[i + 2]! > 200 && pixels[i]! < 80 && pixels[i + 3]! > 0) blue++;
      return blue;
    });
    expect(painted).toBeGreaterThan(20);
    await page.getByRole('img', { name: 'Requests per day, by model' }).locator('canvas').waitFor();
    await screenshot(page, 'usage');

    await page.setViewportSize({ width: 390, height: 800 });
    await tokens.locator('canvas').waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
    await page.getByRole('link', { name: 'Files' }).click();
    await page.getByLabel('Choose files to upload').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await screenshot(page, 'narrow-files');
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate(() => JSON.stringify(sessionStorage))).not.toContain(server.apiKey);
  });

  it('opens the admin views with the admin key: accounts, a new account with its key shown once, credit', async () => {
    await signIn(page, server.url, server.adminKey);
    const accounts = page.getByRole('table', { name: 'Accounts' });
    await accounts.getByText('default').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Team B');
    await page.getByLabel('Initial balance').fill('5');
    await page.getByRole('button', { name: 'Create account' }).click();
    const issued = page.getByRole('status').filter({ hasText: 'Key of the new account Team B' });
    const key = (await issued.locator('code').innerText()).trim();
    expect(key).toMatch(/^fth_/);
    await page.getByLabel('Credit amount for Team B').fill('2.5');
    await page.getByRole('button', { name: 'Credit Team B' }).click();
    await accounts.getByRole('row').filter({ hasText: 'Team B' }).getByText('7.50').waitFor();
    await expect(accounts.getByRole('row').filter({ hasText: 'Team B' }).innerText()).resolves.toContain(`…${key.slice(-4)}`);
    await screenshot(page, 'admin');
    // The new key is a real account key.
    const me = await server.request('/v1/account', { apiKey: key });
    expect((await me.json()).balance).toBe(7.5);
    expect(problems).toEqual([]);
  });
});
