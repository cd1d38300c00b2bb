import robotsParser from 'robots-parser';
import type { EgressGuardContract, EgressResponse } from '../../egress/types';
import { extractContacts, type PageContacts, countryForHost } from './extract-contacts';
import type { CountryCode } from 'libphonenumber-js';

export interface CrawlLimits {
  /** Pages fetched per site, homepage included. */
  maxPages: number;
  /** Bytes read per page (the rest is cut). */
  maxBytesPerPage: number;
  /** Bytes read per site, robots.txt included. */
  maxBytesPerSite: number;
  /** Deadline of each request in milliseconds. */
  timeoutMs: number;
  userAgent: string;
  defaultCountry?: CountryCode;
}

export interface CrawledPage {
  url: string;
  contacts: PageContacts;
}

export interface SiteCrawl {
  site: string;
  status: 'crawled' | 'failed' | 'disallowed_by_robots';
  pages: CrawledPage[];
  error?: { code: string; message: string };
}

/** Paths and link texts of pages that usually carry contact data, most useful first. */
const LIKELY = [
  /kontakt|contact|contacto|contato|contatti|nous-contacter/i,
  /impressum|imprint|legal-notice|mentions-legales|aviso-legal|colophon/i,
  /about|ueber-uns|uber-uns|über-uns|a-propos|quienes-somos|chi-siamo|company|unternehmen/i,
  /team|people|staff|leadership|management|mitarbeiter/i,
  /locations?|standorte?|offices?|support|help/i,
];
const GUESSES = ['/contact', '/impressum', '/about'];

/** `example.com` -> `https://example.com/`; keeps an explicit scheme, path and port. */
export function siteUrl(input: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? input : `https://${input}`;
  const url = new URL(withScheme);
  url.hash = '';
  return url;
}

const sameSite = (a: URL, b: URL) => a.host.replace(/^www\./, '') === b.host.replace(/^www\./, '');

function rank(link: { href: string; text: string }): number {
  const path = new URL(link.href).pathname;
  const index = LIKELY.findIndex((pattern) => pattern.test(path) || pattern.test(link.text));
  return index === -1 ? Number.POSITIVE_INFINITY : index;
}

/**
 * Crawls one site through the egress guard: robots.txt first (honoured for our User-Agent, per origin), then the
 * given page and the most likely contact, imprint, about and team pages linked from it (or guessed
 * when none is linked), within the page and byte bounds.
 */
export async function crawlSite(egress: EgressGuardContract, input: string, limits: CrawlLimits, signal: AbortSignal): Promise<SiteCrawl> {
  let start: URL;
  try {
    start = siteUrl(input);
  } catch {
    return { site: input, status: 'failed', pages: [], error: { code: 'invalid_url', message: `'${input}' is not a URL or domain.` } };
  }
  const site = start.href;
  let bytesLeft = limits.maxBytesPerSite;
  const fetchPage = async (url: string, accept: string): Promise<EgressResponse> => {
    const response = await egress.request(url, {
      headers: { 'user-agent': limits.userAgent, accept },
      timeoutMs: limits.timeoutMs,
      maxBytes: Math.max(1, Math.min(limits.maxBytesPerPage, bytesLeft)),
      maxRedirects: 3,
      signal,
    });
    bytesLeft -= response.body.length;
    return response;
  };

  try {
    // robots.txt per origin (the homepage may redirect to another host), fetched once each.
    const robotsByOrigin = new Map<string, Promise<ReturnType<typeof robotsParser>>>();
    const robotsFor = (origin: string) => {
      let robots = robotsByOrigin.get(origin);
      if (!robots) {
        const robotsUrl = `${origin}/robots.txt`;
        robots = fetchPage(robotsUrl, 'text/plain').then((response) =>
          robotsParser(robotsUrl, response.status >= 500 ? 'User-agent: *\nDisallow: /' : response.status < 400 ? response.text() : ''),
        );
        robotsByOrigin.set(origin, robots);
      }
      return robots;
    };
    const allowed = async (url: string) => (await robotsFor(new URL(url).origin)).isAllowed(url, limits.userAgent) !== false;
    if (!(await allowed(site))) {
      return {
        site,
        status: 'disallowed_by_robots',
        pages: [],
        error: { code: 'disallowed_by_robots', message: `robots.txt of ${start.host} disallows ${start.pathname}.` },
      };
    }

    const pages: CrawledPage[] = [];
    const visited = new Set<string>();
    const country = countryForHost(start.hostname, limits.defaultCountry);
    const visit = async (url: string): Promise<PageContacts | null> => {
      const key = url.replace(/\/+$/, '');
      if (visited.has(key) || pages.length >= limits.maxPages || bytesLeft <= 0 || !(await allowed(url))) return null;
      visited.add(key);
      const response = await fetchPage(url, 'text/html,application/xhtml+xml;q=0.9,text/plain;q=0.5');
      const finalUrl = response.url || url;
      const finalKey = finalUrl.replace(/\/+$/, '');
      if (finalKey !== key && visited.has(finalKey)) return null; // a redirect to a page already read
      visited.add(finalKey);
      if (finalKey !== key && !(await allowed(finalUrl))) return null;
      const type = response.headers['content-type'] ?? 'text/html';
      if (response.status >= 400 || !/html|text\/plain/i.test(type)) return null;
      const contacts = extractContacts(response.text(), finalUrl, country);
      pages.push({ url: finalUrl, contacts });
      return contacts;
    };

    const homeContacts = await visit(site);
    const home = homeContacts ? { ...homeContacts, url: new URL(pages[0]!.url) } : null;
    if (!home) throw Object.assign(new Error(`${site} answered no readable HTML page.`), { code: 'site_unreadable' });
    const candidates = home.links
      .filter((link) => {
        const url = new URL(link.href);
        return (
          /^https?:$/.test(url.protocol) && (sameSite(url, start) || sameSite(url, home.url)) && rank(link) !== Number.POSITIVE_INFINITY
        );
      })
      .sort((a, b) => rank(a) - rank(b))
      .map((link) => link.href.split('#')[0]!);
    const queue = candidates.length > 0 ? candidates : GUESSES.map((path) => new URL(path, home.url).href);
    for (const url of queue) {
      if (pages.length >= limits.maxPages || bytesLeft <= 0) break;
      try {
        await visit(url);
      } catch (error) {
        if (signal.aborted) throw error;
        /* one broken sub-page does not fail the site */
      }
    }
    return { site, status: 'crawled', pages };
  } catch (error) {
    if (signal.aborted) throw signal.reason ?? error;
    const code = (error as { code?: unknown }).code;
    return {
      site,
      status: 'failed',
      pages: [],
      error: { code: typeof code === 'string' && /^[a-z_]+$/.test(code) ? code : 'fetch_failed', message: (error as Error).message },
    };
  }
}
