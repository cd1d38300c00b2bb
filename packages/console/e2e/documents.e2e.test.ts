import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestFathom } from '@fathom/http/test';
import { launchBrowser, openPage, screenshot, signIn, startConsoleServer } from './browser';

const HANDBOOK = `# Handbook

## Expenses
Expense reports are due on the 5th of each month. Late reports are paid in the next cycle.

## Holidays
Every employee has 28 days of paid holiday per year.
`;

/** Upload a file by the file picker, see it complete in a vector store, search it, download it. */
describe('console: documents', () => {
  let server: TestFathom;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    server = await startConsoleServer();
    browser = await launchBrowser();
    ({ page, problems } = await openPage(browser.context));
    await signIn(page, server.url, server.apiKey);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close({ keepData: false });
  });

  it('uploads with progress (picker and drag and drop), lists, downloads and deletes files', async () => {
    await page.getByRole('link', { name: 'Files' }).click();
    await page.getByText('No files yet').waitFor();
    await page.getByLabel('Choose files to upload').setInputFiles([
      { name: 'handbook.md', mimeType: 'text/markdown', buffer: Buffer.from(HANDBOOK) },
      { name: 'scratch.txt', mimeType: 'text/plain', buffer: Buffer.from('temporary notes') },
    ]);
    await page.getByRole('progressbar', { name: 'Upload of handbook.md' }).waitFor();
    const files = page.getByRole('region', { name: 'Files' });
    await files.getByRole('cell', { name: 'handbook.md', exact: true }).waitFor();
    await files.getByRole('cell', { name: 'scratch.txt', exact: true }).waitFor();
    await expect(page.getByRole('progressbar', { name: 'Upload of handbook.md' }).getAttribute('value')).resolves.toBe('1');
    await screenshot(page, 'files');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download handbook.md' }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe('handbook.md');
    const stream = await saved.createReadStream();
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe(HANDBOOK);

    // Drag and drop: a file dropped on the upload area is uploaded like a chosen one.
    const dropped = await page.evaluateHandle(() => {
      const transfer = new DataTransfer();
      transfer.items.add(new File(['dropped notes'], 'dropped.txt', { type: 'text/plain' }));
      return transfer;
    });
    await page.getByLabel('Choose files to upload').dispatchEvent('drop', { dataTransfer: dropped });
    await files.getByRole('cell', { name: 'dropped.txt', exact: true }).waitFor();
    await page.getByRole('button', { name: 'Delete dropped.txt' }).click();
    await files.getByRole('cell', { name: 'dropped.txt', exact: true }).waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Delete scratch.txt' }).click();
    await files.getByRole('cell', { name: 'scratch.txt', exact: true }).waitFor({ state: 'detached' });
    const listed = await (await server.request('/v1/files')).json();
    expect(listed.data.map((file: { filename: string }) => file.filename)).toEqual(['handbook.md']);
  });

  it('adds the file to a vector store, shows it complete with live counts, and searches it', async () => {
    await page.getByRole('link', { name: 'Vector stores' }).click();
    await page.getByLabel('New store name').fill('handbook');
    await page.getByRole('button', { name: 'Create store' }).click();
    await page.getByRole('region', { name: 'Store: handbook' }).waitFor();
    await page.getByLabel('File to add').selectOption({ label: 'handbook.md' });
    await page.getByRole('button', { name: 'Add to store' }).click();
    const storeFiles = page.getByRole('table', { name: 'Store files' });
    await storeFiles.getByText('completed', { exact: true }).waitFor();
    await page.getByText('1 completed, 0 in progress, 0 failed, 0 cancelled of 1').waitFor();
    await expect(storeFiles.getByRole('row').nth(1).innerText()).resolves.toMatch(/handbook\.md\s+completed\s+—/);

    await page.getByLabel('Query').fill('when are expense reports due?');
    await page.getByLabel('Max results').fill('3');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.getByRole('list', { name: 'Search results' });
    const first = results.getByRole('listitem').first();
    await first.waitFor();
    await expect(first.innerText()).resolves.toMatch(/handbook\.md[\s\S]*score 0\.\d{3}[\s\S]*Expense reports are due on the 5th/);

    // A threshold above every score leaves the clear empty state.
    await page.getByLabel('Score threshold').fill('1');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByText('No passage matched').waitFor();
    await page.getByLabel('Score threshold').fill('0');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await first.waitFor();
    await screenshot(page, 'vector-stores');

    // A filter that is not JSON is refused in the page; one the API refuses shows the API's message.
    await page.getByLabel('Filters (JSON, optional)').fill('{"type": "eq"');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'Filters are not valid JSON' }).waitFor();
    await page.getByLabel('Filters (JSON, optional)').fill('{"type": "near", "key": "team", "value": "x"}');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'filters' }).waitFor();
    expect(problems).toEqual([]);
  });
});
