import type { CountryCode } from 'libphonenumber-js';
import type { EgressGuardContract } from '../../egress/types';
import type { ChatAdapterContract } from '../../models/types';
import { TOOL_NAMES } from '../catalog';
import { type ToolSourcesSettings, toolVariable } from '../../config';
import type { ToolSource } from '../types';
import { ApifySource } from './apify-source';
import { HttpSource } from './http-source';
import { NlDataSource } from './nl-data-source';
import { OsmMapsSource } from './osm-maps-source';
import { SocialProfileSource } from './social-profile-source';
import { WebsiteContactsSource } from './website-contacts-source';

export interface CreateToolSourcesOptions {
  /** `config.toolSources`, read once from the environment by `loadConfig`. */
  settings: ToolSourcesSettings;
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
 * Chooses each tool's source from the settings (`FATHOM_TOOLS_*`), first match wins:
 * `FATHOM_TOOLS_<TOOL>_SOURCE=off` disables; `FATHOM_TOOLS_<TOOL>_URL` selects the generic HTTP source;
 * `FATHOM_TOOLS_<TOOL>_APIFY_ACTOR` with `FATHOM_TOOLS_APIFY_TOKEN` selects Apify; otherwise the built-in
 * source (website-contacts, maps, social-profile; nl-data when `FATHOM_TOOLS_MODEL` is set).
 */
export function createToolSources(options: CreateToolSourcesOptions): ConfiguredSources {
  const { settings } = options;
  const fetchImpl = options.fetch;
  const sources = new Map<string, ToolSource>();
  const actors: Record<string, string> = {};
  for (const tool of TOOL_NAMES) {
    const actor = settings.tools[tool]?.apifyActor;
    if (actor) actors[tool] = actor;
  }
  const apify =
    settings.apifyToken && Object.keys(actors).length > 0
      ? new ApifySource({
          token: settings.apifyToken,
          actors,
          baseURL: settings.apifyUrl,
          pollMs: settings.apifyPollMs,
          costMultiplier: settings.apifyCostMultiplier,
          fetch: fetchImpl,
        })
      : undefined;
  const { userAgent, crawl, maps, social, nlData } = settings;

  const builtIn = (tool: string): ToolSource | undefined => {
    switch (tool) {
      case 'website-contacts':
        if (!options.egress) return undefined;
        return new WebsiteContactsSource({
          egress: options.egress,
          ...crawl,
          defaultCountry: settings.defaultCountry as CountryCode | undefined,
          userAgent,
        });
      case 'maps':
        return new OsmMapsSource({
          nominatimURL: maps.nominatimUrl,
          overpassURL: maps.overpassUrl,
          pricePerPlace: maps.pricePerPlace,
          userAgent,
          fetch: fetchImpl,
        });
      case 'social-profile':
        if (!options.egress) return undefined;
        return new SocialProfileSource({
          egress: options.egress,
          blueskyURL: social.blueskyUrl,
          githubURL: social.githubUrl,
          githubToken: social.githubToken,
          mastodonURLTemplate: social.mastodonUrlTemplate,
          pricePerProfile: social.pricePerProfile,
          userAgent,
          fetch: fetchImpl,
        });
      case 'nl-data':
        if (!nlData.model || !options.chat || !options.egress) return undefined;
        return new NlDataSource({
          chat: options.chat,
          egress: options.egress,
          model: nlData.model,
          maxPages: nlData.maxPages,
          pricePerPage: nlData.pricePerPage,
          pricePer1kTokens: nlData.pricePer1kTokens,
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
    const own = settings.tools[tool] ?? {};
    if (own.off) continue;
    const source = own.url
      ? new HttpSource({
          url: own.url,
          token: own.token,
          pricePerItem: own.pricePerItem ?? 0.01,
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
