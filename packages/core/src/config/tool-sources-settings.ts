import { type Env, readNumber } from './env-values';

/** One tool's own variables (`FATHOM_TOOLS_<TOOL>_SOURCE|URL|TOKEN|PRICE_PER_ITEM|APIFY_ACTOR`). */
export interface ToolSourceSetting {
  /** `…_SOURCE=off`: the tool is disabled. */
  off?: boolean;
  /** `…_URL`: the generic HTTP source. */
  url?: string;
  /** `…_TOKEN`: bearer token of that HTTP source. */
  token?: string;
  /** `…_PRICE_PER_ITEM`: price of one item of the HTTP source; default 0.01. */
  pricePerItem?: number;
  /** `…_APIFY_ACTOR`: the Apify actor running this tool (with `FATHOM_TOOLS_APIFY_TOKEN`). */
  apifyActor?: string;
}

/** Where each data tool gets its data (`FATHOM_TOOLS_*`, docs/data-tools.md), read once with the rest of the settings. */
export interface ToolSourcesSettings {
  /** `FATHOM_TOOLS_APIFY_TOKEN` (else `APIFY_TOKEN`). */
  apifyToken?: string;
  /** `FATHOM_TOOLS_APIFY_URL`: Apify's API base URL. */
  apifyUrl?: string;
  /** `FATHOM_TOOLS_APIFY_POLL_MS`, default 2000. */
  apifyPollMs: number;
  /** `FATHOM_TOOLS_APIFY_COST_MULTIPLIER`, default 1. */
  apifyCostMultiplier: number;
  /** `FATHOM_TOOLS_USER_AGENT`. */
  userAgent?: string;
  /** `FATHOM_TOOLS_DEFAULT_COUNTRY` (upper case): the country of phone numbers without a prefix. */
  defaultCountry?: string;
  /** The website-contacts crawler (`FATHOM_TOOLS_CRAWL_*`). */
  crawl: {
    maxPages: number;
    maxBytesPerPage: number;
    maxBytesPerSite: number;
    timeoutMs: number;
    pricePerSite: number;
    siteConcurrency: number;
  };
  /** `FATHOM_TOOLS_NOMINATIM_URL`, `FATHOM_TOOLS_OVERPASS_URL`, `FATHOM_TOOLS_MAPS_PRICE_PER_PLACE` (default 0.02). */
  maps: { nominatimUrl?: string; overpassUrl?: string; pricePerPlace: number };
  /** `FATHOM_TOOLS_BLUESKY_URL`, `…_GITHUB_URL`, `…_GITHUB_TOKEN`, `…_MASTODON_URL_TEMPLATE`, `…_SOCIAL_PRICE_PER_PROFILE` (default 0.05). */
  social: { blueskyUrl?: string; githubUrl?: string; githubToken?: string; mastodonUrlTemplate?: string; pricePerProfile: number };
  /** `FATHOM_TOOLS_MODEL` (unset = no built-in nl-data) and `FATHOM_TOOLS_NL_DATA_*`. */
  nlData: { model?: string; maxPages: number; pricePerPage: number; pricePer1kTokens: number };
  /** Each tool's own variables, by tool name (`pronet-profile` for `FATHOM_TOOLS_PRONET_PROFILE_*`). */
  tools: Record<string, ToolSourceSetting>;
}

const TOOL_SUFFIXES = ['APIFY_ACTOR', 'PRICE_PER_ITEM', 'SOURCE', 'TOKEN', 'URL'] as const;

/** The per-tool variables present in `env`, by tool name. */
function readPerTool(env: Env): Record<string, ToolSourceSetting> {
  const tools: Record<string, ToolSourceSetting> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('FATHOM_TOOLS_') || !value) continue;
    const suffix = TOOL_SUFFIXES.find((candidate) => name.endsWith(`_${candidate}`));
    const stem = suffix && name.slice('FATHOM_TOOLS_'.length, -(suffix.length + 1));
    if (!suffix || !stem) continue;
    const tool = stem.toLowerCase().replace(/_/g, '-');
    const entry = (tools[tool] ??= {});
    if (suffix === 'SOURCE') entry.off = value.toLowerCase() === 'off';
    else if (suffix === 'URL') entry.url = value;
    else if (suffix === 'TOKEN') entry.token = value;
    else if (suffix === 'APIFY_ACTOR') entry.apifyActor = value;
    else entry.pricePerItem = readNumber(env, name, 0.01, 0);
  }
  return tools;
}

export function readToolSourcesSettings(env: Env): ToolSourcesSettings {
  return {
    apifyToken: env.FATHOM_TOOLS_APIFY_TOKEN || env.APIFY_TOKEN || undefined,
    apifyUrl: env.FATHOM_TOOLS_APIFY_URL || undefined,
    apifyPollMs: readNumber(env, 'FATHOM_TOOLS_APIFY_POLL_MS', 2000, 1),
    apifyCostMultiplier: readNumber(env, 'FATHOM_TOOLS_APIFY_COST_MULTIPLIER', 1, 0),
    userAgent: env.FATHOM_TOOLS_USER_AGENT || undefined,
    defaultCountry: env.FATHOM_TOOLS_DEFAULT_COUNTRY?.toUpperCase() || undefined,
    crawl: {
      maxPages: readNumber(env, 'FATHOM_TOOLS_CRAWL_MAX_PAGES', 20, 1),
      maxBytesPerPage: readNumber(env, 'FATHOM_TOOLS_CRAWL_MAX_BYTES_PER_PAGE', 1024 * 1024, 1024),
      maxBytesPerSite: readNumber(env, 'FATHOM_TOOLS_CRAWL_MAX_BYTES_PER_SITE', 4 * 1024 * 1024, 1024),
      timeoutMs: readNumber(env, 'FATHOM_TOOLS_CRAWL_TIMEOUT_MS', 15_000, 1),
      pricePerSite: readNumber(env, 'FATHOM_TOOLS_CRAWL_PRICE_PER_SITE', 0.04, 0),
      siteConcurrency: readNumber(env, 'FATHOM_TOOLS_CRAWL_SITE_CONCURRENCY', 4, 1),
    },
    maps: {
      nominatimUrl: env.FATHOM_TOOLS_NOMINATIM_URL || undefined,
      overpassUrl: env.FATHOM_TOOLS_OVERPASS_URL || undefined,
      pricePerPlace: readNumber(env, 'FATHOM_TOOLS_MAPS_PRICE_PER_PLACE', 0.02, 0),
    },
    social: {
      blueskyUrl: env.FATHOM_TOOLS_BLUESKY_URL || undefined,
      githubUrl: env.FATHOM_TOOLS_GITHUB_URL || undefined,
      githubToken: env.FATHOM_TOOLS_GITHUB_TOKEN || undefined,
      mastodonUrlTemplate: env.FATHOM_TOOLS_MASTODON_URL_TEMPLATE || undefined,
      pricePerProfile: readNumber(env, 'FATHOM_TOOLS_SOCIAL_PRICE_PER_PROFILE', 0.05, 0),
    },
    nlData: {
      model: env.FATHOM_TOOLS_MODEL || undefined,
      maxPages: readNumber(env, 'FATHOM_TOOLS_NL_DATA_MAX_PAGES', 5, 1),
      pricePerPage: readNumber(env, 'FATHOM_TOOLS_NL_DATA_PRICE_PER_PAGE', 0.02, 0),
      pricePer1kTokens: readNumber(env, 'FATHOM_TOOLS_NL_DATA_PRICE_PER_1K_TOKENS', 0.002, 0),
    },
    tools: readPerTool(env),
  };
}
