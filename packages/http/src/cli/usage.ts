import type { UsagePage } from '@fathom/core';
import { callApi, embeddedAccount, type Target, withFathom } from './context';
import { printJson, printTable } from './output';

export interface UsageOptions {
  from?: string;
  to?: string;
  model?: string;
  json: boolean;
}

/** `fathom usage`: the account's token usage as a table by UTC day and model (`GET /v1/usage`). */
export async function usage(target: Target, options: UsageOptions): Promise<void> {
  const query = {
    ...(options.from ? { start_date: options.from } : {}),
    ...(options.to ? { end_date: options.to } : {}),
    ...(options.model ? { model: options.model } : {}),
  };
  const page =
    target.mode === 'remote'
      ? await callApi<UsagePage>(target, 'GET', `/v1/usage?${new URLSearchParams(query)}`)
      : await withFathom(async (fathom) => {
          const { UsageListParams } = await import('@fathom/core');
          const { checkValue } = await import('../validators');
          // Without `group_by` the answer is the rows per day and model.
          return (await fathom.usage.list(await embeddedAccount(fathom, target.account), checkValue(UsageListParams, query))) as UsagePage;
        });
  if (options.json) return printJson(page.data);
  if (page.data.length === 0) return console.log('No usage recorded.');
  printTable(
    ['DATE', 'MODEL', 'REQUESTS', 'PROMPT', 'COMPLETION', 'TOTAL'],
    page.data.map((row) => [row.date, row.model, row.requests, row.prompt_tokens, row.completion_tokens, row.total_tokens]),
  );
}
