import type { CountryCode } from 'libphonenumber-js';
import type { EgressGuardContract } from '../../egress/types';
import type { ChatAdapterContract } from '../../models/types';
import { TOOL_NAMES } from '../catalog';
import { readNumber, toolVariable } from '../../config';
import type { ToolSource } from '../types';
import { ApifySource } from './apify-source';
import { HttpSource } from './http-source';
import { NlDataSource } from './nl-data-source';
import { OsmMapsSource } from './osm-maps-source';
import { SocialProfileSource } from './social-profile-source';
import { WebsiteContactsSource } from './website-contacts-source';

type Env = Readonly<Record<string, string | undefined>>;

export interface CreateToolSourcesOptions {
  env: Env;
  egress?: EgressGuardContract;
  chat?: ChatAdapterContract;
  /** Sources that win over configuration, by tool name. */
  overrides?: Partial<Record<string, ToolSource>>;
  /** A `fetch` to use instead of undici's request (tests, proxies). */
  fetch?: typeof fetch;
}

export interface ConfiguredSources {
  /** The source of each configured tool. */
  sources: Map<string, ToolSource>;
  /** One sentence saying which variables configure `tool`. */
  howToConfigure(tool: string): string;
}

const PROVIDER_ONLY = new Set([
  'pronet-profile',
  'pronet-profile-detail',
  'pronet-employees',
  'pronet-company',
  'pronet-jobs',
  'leads-finder',
]);

/**
 * Chooses each tool's source from the environment, first match wins:
 * `FATHOM_TOOLS_<TOOL>_SOURCE=off` disables; `FATHOM_TOOLS_<TOOL>_URL` selects the generic HTTP source;
 * `FATHOM_TOOLS_<TOOL>_APIFY_ACTOR` with `FATHOM_TOOLS_APIFY_TOKEN` selects Apify; otherwise the built-in
 * source (website-contacts, maps, social-profile; nl-data when `FATHOM_TOOLS_MODEL` is set).
 */
export function createToolSources(options: CreateToolSourcesOptions): ConfiguredSources {
  const { env } = options;
  const fetchImpl = options.fetch;
  const sources = new Map<string, ToolSource>();
  const apifyToken = env.FATHOM_TOOLS_APIFY_TOKEN || env.APIFY_TOKEN;
  const actors: Record<string, string> = {};
  for (const tool of TOOL_NAMES) {
    const actor = env[toolVariable(tool, 'APIFY_ACTOR')];
    if (actor) actors[tool] = actor;
  }
  const apify =
    apifyToken && Object.keys(actors).length > 0
      ? new ApifySource({
          token: apifyToken,
          actors,
          baseURL: env.FATHOM_TOOLS_APIFY_URL || undefined,
          pollMs: readNumber(env, 'FATHOM_TOOLS_APIFY_POLL_MS', 2000, 1),
          costMultiplier: readNumber(env, 'FATHOM_TOOLS_APIFY_COST_MULTIPLIER', 1, 0),
          fetch: fetchImpl,
        })
      : undefined;
  const userAgent = env.FATHOM_TOOLS_USER_AGENT || undefined;

  const builtIn = (tool: string): ToolSource | undefined => {
    switch (tool) {
      case 'website-contacts':
        if (!options.egress) return undefined;
        return new WebsiteContactsSource({
          egress: options.egress,
          maxPages: readNumber(env, 'FATHOM_TOOLS_CRAWL_MAX_PAGES', 20, 1),
          maxBytesPerPage: readNumber(env, 'FATHOM_TOOLS_CRAWL_MAX_BYTES_PER_PAGE', 1024 * 1024, 1024),
          maxBytesPerSite: readNumber(env, 'FATHOM_TOOLS_CRAWL_MAX_BYTES_PER_SITE', 4 * 1024 * 1024, 1024),
          timeoutMs: readNumber(env, 'FATHOM_TOOLS_CRAWL_TIMEOUT_MS', 15_000, 1),
          pricePerSite: readNumber(env, 'FATHOM_TOOLS_CRAWL_PRICE_PER_SITE', 0.04, 0),
          siteConcurrency: readNumber(env, 'FATHOM_TOOLS_CRAWL_SITE_CONCURRENCY', 4, 1),
          defaultCountry: (env.FATHOM_TOOLS_DEFAULT_COUNTRY?.toUpperCase() || undefined) as CountryCode | undefined,
          userAgent,
        });
      case 'maps':
        return new OsmMapsSource({
          nominatimURL: env.FATHOM_TOOLS_NOMINATIM_URL || undefined,
          overpassURL: env.FATHOM_TOOLS_OVERPASS_URL || undefined,
          pricePerPlace: readNumber(env, 'FATHOM_TOOLS_MAPS_PRICE_PER_PLACE', 0.02, 0),
          userAgent,
          fetch: fetchImpl,
        });
      case 'social-profile':
        if (!options.egress) return undefined;
        return new SocialProfileSource({
          egress: options.egress,
          blueskyURL: env.FATHOM_TOOLS_BLUESKY_URL || undefined,
          githubURL: env.FATHOM_TOOLS_GITHUB_URL || undefined,
          githubToken: env.FATHOM_TOOLS_GITHUB_TOKEN || undefined,
          mastodonURLTemplate: env.FATHOM_TOOLS_MASTODON_URL_TEMPLATE || undefined,
          pricePerProfile: readNumber(env, 'FATHOM_TOOLS_SOCIAL_PRICE_PER_PROFILE', 0.05, 0),
          userAgent,
          fetch: fetchImpl,
        });
      case 'nl-data':
        if (!env.FATHOM_TOOLS_MODEL || !options.chat || !options.egress) return undefined;
        return new NlDataSource({
          chat: options.chat,
          egress: options.egress,
          model: env.FATHOM_TOOLS_MODEL,
          maxPages: readNumber(env, 'FATHOM_TOOLS_NL_DATA_MAX_PAGES', 5, 1),
          pricePerPage: readNumber(env, 'FATHOM_TOOLS_NL_DATA_PRICE_PER_PAGE', 0.02, 0),
          pricePer1kTokens: readNumber(env, 'FATHOM_TOOLS_NL_DATA_PRICE_PER_1K_TOKENS', 0.002, 0),
          userAgent,
        });
      default:
        return undefined;
    }
  };

  for (const tool of TOOL_NAMES) {
    const override = options.overrides?.[tool];
    if (override) {
      sources.set(tool, override);
      continue;
    }
    if ((env[toolVariable(tool, 'SOURCE')] ?? '').toLowerCase() === 'off') continue;
    const url = env[toolVariable(tool, 'URL')];
    const source = url
      ? new HttpSource({
          url,
          token: env[toolVariable(tool, 'TOKEN')] || undefined,
          pricePerItem: readNumber(env, toolVariable(tool, 'PRICE_PER_ITEM'), 0.01, 0),
          fetch: fetchImpl,
        })
      : apify && actors[tool]
        ? apify
        : builtIn(tool);
    if (source) sources.set(tool, source);
  }

  return {
    sources,
    howToConfigure(tool) {
      const url = toolVariable(tool, 'URL');
      const actor = toolVariable(tool, 'APIFY_ACTOR');
      if (PROVIDER_ONLY.has(tool)) {
        return `Set ${actor} and FATHOM_TOOLS_APIFY_TOKEN (an Apify actor), or ${url} (your own HTTP provider), then restart. See docs/data-tools.md.`;
      }
      if (tool === 'nl-data') {
        return `Set FATHOM_TOOLS_MODEL=<vendor>/<model> (a model the chat gateway can reach) or ${url}, then restart. See docs/data-tools.md.`;
      }
      return `It was disabled with ${toolVariable(tool, 'SOURCE')}=off or has no egress guard; unset that variable, or set ${url} or ${actor}, then restart. See docs/data-tools.md.`;
    },
  };
}
