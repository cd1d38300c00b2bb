import type { EgressGuardContract } from '../../egress/types';
import type { ToolItem, ToolOutput, ToolRunOptions, ToolSource } from '../types';
import { SourceError } from './source-error';
import { crawlSite, type CrawlLimits } from './website-crawler';

export interface WebsiteContactsOptions extends Partial<CrawlLimits> {
  egress: EgressGuardContract;
  /** `FATHOM_TOOLS_CRAWL_PRICE_PER_SITE`: cost per site crawled; default 0.04 (20 sites = the 0.80 ceiling). */
  pricePerSite?: number;
  /** `FATHOM_TOOLS_CRAWL_SITE_CONCURRENCY`: sites crawled at once; default 4. */
  siteConcurrency?: number;
}

/** The `website-contacts` tool's input as `validateToolInput` checked it against its input_schema (defaults applied). */
type WebsiteContactsInput = {
  websites: string[];
  max_pages_per_site?: number;
};

/**
 * The built-in `website-contacts` source: crawls each site (see `crawlSite`) and returns
 * `email`, `phone` and `social` items, each with the `site` and the `source_url` it was found on.
 * Only sites where at least one page was read are billed; the job fails when no site could be read.
 */
export class WebsiteContactsSource implements ToolSource {
  readonly name = 'website-crawler';
  readonly #egress: EgressGuardContract;
  readonly #limits: Omit<CrawlLimits, 'maxPages'> & { maxPages: number };
  readonly #pricePerSite: number;
  readonly #siteConcurrency: number;

  constructor(options: WebsiteContactsOptions) {
    this.#egress = options.egress;
    this.#limits = {
      maxPages: options.maxPages ?? 20,
      maxBytesPerPage: options.maxBytesPerPage ?? 1024 * 1024,
      maxBytesPerSite: options.maxBytesPerSite ?? 4 * 1024 * 1024,
      timeoutMs: options.timeoutMs ?? 15_000,
      userAgent: options.userAgent ?? 'FathomBot/1.0 (+self-hosted data tools)',
      defaultCountry: options.defaultCountry,
    };
    this.#pricePerSite = options.pricePerSite ?? 0.04;
    this.#siteConcurrency = options.siteConcurrency ?? 4;
  }

  async run({ input: raw, signal }: ToolRunOptions): Promise<ToolOutput> {
    const input = raw as WebsiteContactsInput;
    const websites = [...new Set<string>(input.websites)];
    // The input asks (default 6); the operator's FATHOM_TOOLS_CRAWL_MAX_PAGES caps it.
    const limits = { ...this.#limits, maxPages: Math.min(input.max_pages_per_site ?? 6, this.#limits.maxPages) };
    const crawls = new Array<Awaited<ReturnType<typeof crawlSite>>>(websites.length);
    let next = 0;
    const worker = async () => {
      while (next < websites.length) {
        const index = next++;
        crawls[index] = await crawlSite(this.#egress, websites[index]!, limits, signal);
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#siteConcurrency, websites.length) }, worker));

    const items: ToolItem[] = [];
    for (const crawl of crawls) {
      const seen = new Set<string>();
      const add = (item: ToolItem) => {
        const key = `${item.type}:${item.value}`;
        if (!seen.has(key)) seen.add(key) && items.push(item);
      };
      for (const page of crawl.pages) {
        for (const email of page.contacts.emails) add({ type: 'email', value: email, site: crawl.site, source_url: page.url });
        for (const phone of page.contacts.phones)
          add({ type: 'phone', value: phone.number, national: phone.national, site: crawl.site, source_url: page.url });
        for (const social of page.contacts.socials)
          add({ type: 'social', value: social.url, network: social.network, site: crawl.site, source_url: page.url });
      }
    }
    const sites = crawls.map((crawl) => ({
      site: crawl.site,
      status: crawl.status,
      pages_crawled: crawl.pages.map((page) => page.url),
      error: crawl.error ?? null,
    }));
    const crawled = crawls.filter((crawl) => crawl.pages.length > 0).length;
    if (crawled === 0) {
      const codes = new Set(crawls.map((crawl) => crawl.error?.code ?? 'fetch_failed'));
      const code = codes.size === 1 ? [...codes][0]! : 'crawl_failed';
      throw new SourceError(
        code,
        `No website could be read; nothing was charged. ${crawls.map((crawl) => `${crawl.site}: ${crawl.error?.message ?? crawl.status}`).join(' ')}`,
      );
    }
    return { items, cost: crawled * this.#pricePerSite, details: { sites } };
  }
}
