import { Ajv, type ValidateFunction } from 'ajv';
import type { EgressGuardContract } from '../../egress/types';
import type { ChatAdapterContract, ChatMessage } from '../../models/types';
import type { ToolItem, ToolOutput, ToolRunOptions, ToolSource } from '../types';
import { htmlToText } from './html-to-text';
import { SourceError } from './source-error';

export interface NlDataSourceOptions {
  chat: ChatAdapterContract;
  egress: EgressGuardContract;
  /** `FATHOM_TOOLS_MODEL`: `<vendor>/<model>` used for planning and extraction. */
  model: string;
  /** `FATHOM_TOOLS_NL_DATA_MAX_PAGES`: pages read per job; default 5. */
  maxPages?: number;
  /** Characters of page text given to the model per page; default 12000. */
  maxCharsPerPage?: number;
  /** `FATHOM_TOOLS_NL_DATA_PRICE_PER_PAGE`: default 0.02. */
  pricePerPage?: number;
  /** `FATHOM_TOOLS_NL_DATA_PRICE_PER_1K_TOKENS`: default 0.002. */
  pricePer1kTokens?: number;
  userAgent?: string;
}

/** The extraction plan the model writes first. */
export interface ExtractionPlan {
  item_type: string;
  item_schema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  urls?: string[];
  instructions?: string;
}

let ajv: Ajv | undefined;
let validatePlan: ValidateFunction<ExtractionPlan> | undefined;
/** The validator of plans and items, made on the first plan (a process that runs no extraction never pays for it). */
function planAjv(): Ajv {
  return (ajv ??= new Ajv({ allErrors: true, strict: false }));
}
const PLAN_SCHEMA = {
  type: 'object',
  required: ['item_type', 'item_schema'],
  properties: {
    item_type: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,40}$' },
    item_schema: {
      type: 'object',
      required: ['type', 'properties'],
      properties: { type: { const: 'object' }, properties: { type: 'object' } },
    },
    urls: { type: 'array', items: { type: 'string' } },
    instructions: { type: 'string' },
  },
};

const PLAN_PROMPT = `You plan a data extraction from public web pages. Answer only a JSON object:
{"item_type": "<snake_case noun>", "item_schema": <JSON Schema of one item: {"type":"object","properties":{"value":{"type":"string","description":"the item's main label"}, ...},"required":["value", ...]}>, "urls": [<public page URLs likely to hold the data, only when none were given>], "instructions": "<how to find the items on a page>"}
Refuse nothing here; policy was checked before.`;

const EXTRACT_PROMPT = (
  plan: ExtractionPlan,
  limit: number,
) => `Extract every "${plan.item_type}" found in the page text below, at most ${limit}.
Each item must validate against this JSON Schema: ${JSON.stringify(plan.item_schema)}
${plan.instructions ? `Instructions: ${plan.instructions}\n` : ''}Use only facts present in the text. Answer only a JSON object {"items": [...]}.`;

/** Parses a model answer as JSON, tolerating a fenced code block around it. */
export function parseModelJson(content: string | null): unknown {
  const text = (content ?? '')
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    return JSON.parse(text);
  } catch {
    const start = text.indexOf('{');
    const end = text.lastIndexOf('}');
    if (start >= 0 && end > start) return JSON.parse(text.slice(start, end + 1));
    throw new SourceError('model_output_invalid', `The model did not answer JSON: ${text.slice(0, 200)}`);
  }
}

/** The `nl-data` tool's input as `validateToolInput` checked it against its input_schema (defaults applied). */
type NlDataInput = {
  description: string;
  urls?: string[];
  limit: number;
};

/**
 * `nl-data`: the model turns the description into an extraction plan (item type + JSON Schema, and
 * pages when none were given), the pages are fetched through the egress guard, and the model extracts
 * items from each page; only items valid against the plan's schema are kept.
 */
export class NlDataSource implements ToolSource {
  readonly name = 'model-extraction';
  readonly #options: NlDataSourceOptions;

  constructor(options: NlDataSourceOptions) {
    this.#options = options;
  }

  async run({ input: raw, signal, accountId }: ToolRunOptions): Promise<ToolOutput> {
    const input = raw as NlDataInput;
    const { chat, model } = this.#options;
    let tokens = 0;
    const ask = async (messages: ChatMessage[]) => {
      const result = await chat.complete(
        { model, messages, temperature: 0, response_format: { type: 'json_object' } },
        // The job's own price counts these tokens (pricePer1kTokens): the model call is not charged again.
        { signal, accountId, chargedByCaller: true },
      );
      tokens += result.usage?.total_tokens ?? 0;
      return parseModelJson(result.message.content);
    };
    const given: string[] = input.urls ?? [];
    const plan = await ask([
      { role: 'system', content: PLAN_PROMPT },
      {
        role: 'user',
        content: `Data needed: ${input.description}\n${given.length ? `Pages given: ${given.join(', ')}` : 'No pages given: propose up to 5 public URLs.'}`,
      },
    ]);
    validatePlan ??= planAjv().compile<ExtractionPlan>(PLAN_SCHEMA);
    if (!validatePlan(plan))
      throw new SourceError(
        'model_output_invalid',
        `The model's extraction plan is not valid: ${planAjv().errorsText(validatePlan.errors)}.`,
      );
    plan.item_schema.properties = { ...plan.item_schema.properties, value: { type: 'string' } };
    plan.item_schema.required = [...new Set([...(plan.item_schema.required ?? []), 'value'])];
    const validateItem = planAjv().compile<Record<string, unknown>>(plan.item_schema);

    const urls = (given.length ? given : (plan.urls ?? []).filter((url) => /^https?:\/\//i.test(url))).slice(
      0,
      this.#options.maxPages ?? 5,
    );
    if (urls.length === 0)
      throw new SourceError('no_pages', 'No pages to read: give `urls`, or describe data the model can locate. Nothing was charged.');

    const items: ToolItem[] = [];
    let pagesRead = 0;
    let rejected = 0;
    const pages: Array<{ url: string; status: string }> = [];
    for (const url of urls) {
      if (items.length >= input.limit) break;
      let text: string;
      try {
        const response = await this.#options.egress.request(url, {
          headers: { accept: 'text/html,text/plain;q=0.8', 'user-agent': this.#options.userAgent ?? 'FathomBot/1.0' },
          timeoutMs: 15_000,
          maxBytes: 2 * 1024 * 1024,
          signal,
        });
        if (response.status >= 400) {
          pages.push({ url, status: `http_${response.status}` });
          continue;
        }
        const body = response.text();
        text = /html/i.test(response.headers['content-type'] ?? 'text/html') ? htmlToText(body) : body;
      } catch (error) {
        if (signal.aborted) throw error;
        pages.push({ url, status: (error as { code?: string }).code ?? 'fetch_failed' });
        continue;
      }
      pagesRead++;
      pages.push({ url, status: 'read' });
      const answer = await ask([
        { role: 'system', content: EXTRACT_PROMPT(plan, input.limit - items.length) },
        { role: 'user', content: text.slice(0, this.#options.maxCharsPerPage ?? 12_000) },
      ]);
      const candidates: unknown[] =
        typeof answer === 'object' && answer !== null && 'items' in answer && Array.isArray(answer.items) ? answer.items : [];
      for (const candidate of candidates) {
        if (items.length >= input.limit) break;
        if (!validateItem(candidate)) {
          rejected++;
          continue;
        }
        items.push({ ...candidate, type: plan.item_type, value: String(candidate.value), source_url: url });
      }
    }
    if (pagesRead === 0)
      throw new SourceError(
        'no_pages',
        `None of the pages could be read (${pages.map((page) => `${page.url}: ${page.status}`).join(', ')}). Nothing was charged.`,
      );
    const cost = pagesRead * (this.#options.pricePerPage ?? 0.02) + (tokens / 1000) * (this.#options.pricePer1kTokens ?? 0.002);
    return {
      items,
      cost,
      details: { plan: { item_type: plan.item_type, item_schema: plan.item_schema }, pages, rejected_items: rejected },
    };
  }
}
