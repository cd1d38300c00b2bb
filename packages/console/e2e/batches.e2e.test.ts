import { createFakeOpenAIUpstream, type FakeUpstream } from '@fathom/core/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestFathom } from '../../http/test/harness';
import { launchBrowser, openPage, screenshot, signIn, startConsoleServer } from './browser';

/** The batches page: a finished batch with its progress, and its output file downloaded from the list. */
describe('console: batches', () => {
  let server: TestFathom;
  let upstream: FakeUpstream;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    upstream = await createFakeOpenAIUpstream([], { models: ['embed-fake'] });
    server = await startConsoleServer({
      env: { FATHOM_PROVIDERS: JSON.stringify({ fake: { type: 'openai', baseUrl: upstream.baseUrl } }) },
    });
    browser = await launchBrowser();
    ({ page, problems } = await openPage(browser.context));
    await signIn(page, server.url, server.apiKey);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close({ keepData: false });
    await upstream?.close();
  });

  it('lists a batch with its progress and downloads its output file', async () => {
    const lines = ['one', 'two', 'three'].map((text) =>
      JSON.stringify({ custom_id: text, method: 'POST', url: '/v1/embeddings', body: { model: 'fake/embed-fake', input: text } }),
    );
    const input = await server.client.files.create({ file: new File([lines.join('\n')], 'requests.jsonl'), purpose: 'batch' });
    const created = await server.client.batches.create({ input_file_id: input.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    const batch = await server.fathom.batches.wait(server.fathom.bootstrap.accountId!, created.id);
    expect(batch.status).toBe('completed');

    await page.getByRole('link', { name: 'Batches' }).click();
    const table = page.getByRole('table', { name: 'Batches' });
    const row = table.getByRole('row').filter({ hasText: batch.id });
    await row.getByText('completed').waitFor();
    await expect(row.textContent()).resolves.toContain('3 / 3 (0 failed)');
    await expect(page.getByRole('progressbar', { name: `Progress of ${batch.id}` }).getAttribute('value')).resolves.toBe('3');
    await screenshot(page, 'batches');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: `Download the output file of ${batch.id}` }).click();
    const saved = await download;
    expect(saved.suggestedFilename()).toBe(`${batch.id}_output.jsonl`);
    const chunks: Buffer[] = [];
    for await (const chunk of await saved.createReadStream()) chunks.push(chunk as Buffer);
    const output = Buffer.concat(chunks)
      .toString()
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as { custom_id: string });
    expect(output.map((entry) => entry.custom_id).sort()).toEqual(['one', 'three', 'two']);
    expect(await row.getByRole('button', { name: `Download the error file of ${batch.id}` }).count()).toBe(0);
    expect(problems).toEqual([]);
  });
});
