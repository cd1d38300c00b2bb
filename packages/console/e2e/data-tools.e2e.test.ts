import type { TestServer } from '@fathom/core/test';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFakeWebsite, type TestFathom } from '@fathom/http/test';
import { launchBrowser, openPage, screenshot, signIn, startConsoleServer } from './browser';

/** Start a website-contacts job from the form generated from its input_schema, and see its items. */
describe('console: data tools', () => {
  let server: TestFathom;
  let website: TestServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let page: Page;
  let problems: string[];

  beforeAll(async () => {
    website = await createFakeWebsite();
    server = await startConsoleServer({ env: { AGENT_EGRESS_ALLOW: '127.0.0.1', FATHOM_TOOLS_SWEEP_MS: '50' } });
    browser = await launchBrowser();
    ({ page, problems } = await openPage(browser.context));
    await signIn(page, server.url, server.apiKey);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close({ keepData: false });
    await website?.close();
  });

  it('shows the API error for bad input, runs a job against a local website, and lists its items, cost and balance', async () => {
    await page.getByRole('link', { name: 'Data tools' }).click();
    await page.getByText('No jobs yet').waitFor();
    await page.getByLabel('Tool', { exact: true }).selectOption('website-contacts');
    const form = page.getByRole('form', { name: 'Start website-contacts' });
    // Nothing filled in: the API's own 400 message names the missing field.
    await form.getByRole('button', { name: 'Start job' }).click();
    await form.getByRole('alert').filter({ hasText: "'websites'" }).waitFor();

    await form.getByLabel('websites (required)').fill(website.url);
    await form.getByRole('button', { name: 'Start job' }).click();
    const jobs = page.getByRole('table', { name: 'Jobs' });
    await jobs.getByText('succeeded').waitFor({ timeout: 60_000 });
    const items = page.getByRole('table', { name: 'Result items' });
    await items.getByRole('cell', { name: 'hello@acme.test', exact: true }).waitFor();
    const text = await items.innerText();
    expect(text).toContain('sales@acme.test');
    expect(text).toMatch(/email/);
    const row = await jobs.getByRole('row').nth(1).innerText();
    expect(row).toMatch(/website-contacts\s+succeeded\s+\d+\.\d{2}\s+no/);

    // The job's reservation and charge are in the ledger, and the balance moved by the cost.
    const job = (await (await server.request('/v1/tools/jobs')).json()).data[0];
    const ledger = page.getByRole('table', { name: 'Ledger' });
    await ledger.getByText(job.job_id).first().waitFor();
    const account = await (await server.request('/v1/account')).json();
    await page.getByText(`Balance: ${account.balance.toFixed(2)}`).waitFor();
    await screenshot(page, 'data-tools');
    expect(problems).toEqual([]);
  });
});
