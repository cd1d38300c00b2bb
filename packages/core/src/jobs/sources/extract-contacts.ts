import { Parser } from 'htmlparser2';
import { findPhoneNumbersInText, parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js';

export interface PageLink {
  href: string;
  text: string;
}

export interface PageContacts {
  links: PageLink[];
  emails: string[];
  /** E.164 numbers with their national formatting. */
  phones: Array<{ number: string; national: string }>;
  /** Profile URLs with their network name. */
  socials: Array<{ url: string; network: string }>;
}

const SKIP_TEXT = new Set(['script', 'style', 'noscript', 'template', 'svg']);
// Quantifiers are bounded (RFC 5321 lengths) so a page of long tokens cannot make matching quadratic.
const EMAIL = /[a-z0-9][a-z0-9._%+-]{0,63}@(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.){1,8}[a-z]{2,24}(?![a-z0-9-])/gi;
const NOT_AN_EMAIL_TLD = /\.(png|jpe?g|gif|svg|webp|avif|css|js|ico|bmp|tiff?)$/i;

const NETWORKS: Array<[RegExp, string]> = [
  [/(^|\.)linkedin\.com$/, 'linkedin'],
  [/(^|\.)(twitter|x)\.com$/, 'x'],
  [/(^|\.)facebook\.com$/, 'facebook'],
  [/(^|\.)instagram\.com$/, 'instagram'],
  [/(^|\.)(youtube\.com|youtu\.be)$/, 'youtube'],
  [/(^|\.)tiktok\.com$/, 'tiktok'],
  [/(^|\.)github\.com$/, 'github'],
  [/(^|\.)xing\.com$/, 'xing'],
  [/(^|\.)pinterest\.[a-z.]+$/, 'pinterest'],
  [/(^|\.)bsky\.app$/, 'bluesky'],
  [/(^|\.)threads\.net$/, 'threads'],
  [/(^|\.)(mastodon\.social|mastodon\.online|fosstodon\.org)$/, 'mastodon'],
];
const SHARE_LINK = /sharer|share\?|\/share\b|intent\/|\/dialog\/|shareArticle|\/plugins\//i;

/** Undoes the usual hiding of addresses: `name [at] domain [dot] com`, `name(at)domain(dot)com`, `name AT domain DOT com`. */
export function deobfuscateEmails(text: string): string {
  return text
    .replace(/ {0,3}[[({<] {0,2}(?:at|@|ät) {0,2}[\])}>] {0,3}/gi, '@')
    .replace(/ {0,3}[[({<] {0,2}(?:dot|punkt|point|\.) {0,2}[\])}>] {0,3}/gi, '.')
    .replace(
      /\b([a-z0-9._%+-]{1,64})\s{1,3}(?:at|AT)\s{1,3}([a-z0-9-]{1,63}(?:\s{1,3}(?:dot|DOT)\s{1,3}[a-z0-9-]{1,63}){1,4})\b/g,
      (_, user: string, domain: string) => `${user}@${domain.replace(/\s+(?:dot|DOT)\s+/g, '.')}`,
    );
}

/** Cloudflare's email protection: hex string whose first byte XORs the rest. */
function decodeCfEmail(hex: string): string | null {
  if (!/^[0-9a-f]{4,}$/i.test(hex) || hex.length % 2) return null;
  const key = parseInt(hex.slice(0, 2), 16);
  let out = '';
  for (let i = 2; i < hex.length; i += 2) out += String.fromCharCode(parseInt(hex.slice(i, i + 2), 16) ^ key);
  return out;
}

export function findEmails(text: string): string[] {
  const found = `${text}\n${deobfuscateEmails(text)}`.match(EMAIL) ?? [];
  return [...new Set(found.map((email) => email.toLowerCase().replace(/\.+$/, '')).filter((email) => !NOT_AN_EMAIL_TLD.test(email)))];
}

export function socialNetwork(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(parsed.protocol) || SHARE_LINK.test(parsed.pathname + parsed.search)) return null;
  if (parsed.pathname === '/' || parsed.pathname === '') return null;
  const host = parsed.hostname.toLowerCase();
  return NETWORKS.find(([pattern]) => pattern.test(host))?.[1] ?? null;
}

/** Reads one HTML page: links, visible text, and the emails, phones and social profiles in them. */
export function extractContacts(html: string, pageUrl: string, country?: CountryCode): PageContacts {
  const links: PageLink[] = [];
  const texts: string[] = [];
  const emails = new Set<string>();
  const tels: string[] = [];
  let skipDepth = 0;
  let current: PageLink | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (SKIP_TEXT.has(name)) skipDepth++;
        if (attributes['data-cfemail']) {
          const decoded = decodeCfEmail(attributes['data-cfemail']);
          if (decoded) emails.add(decoded.toLowerCase());
        }
        if (name !== 'a' || !attributes.href) return;
        const href = attributes.href.trim();
        if (/^mailto:/i.test(href)) {
          const address = safeDecode(href.slice(7).split('?')[0]!);
          for (const email of address.split(',')) if (email.includes('@')) emails.add(email.trim().toLowerCase());
        } else if (/^tel:/i.test(href)) {
          tels.push(safeDecode(href.slice(4)));
        } else {
          try {
            current = { href: new URL(href, pageUrl).href, text: '' };
            links.push(current);
          } catch {
            /* not a URL */
          }
        }
      },
      ontext(text) {
        if (skipDepth > 0) return;
        texts.push(text);
        if (current) current.text += text;
      },
      onclosetag(name) {
        if (SKIP_TEXT.has(name) && skipDepth > 0) skipDepth--;
        if (name === 'a') current = null;
        if (/^(p|div|br|li|tr|td|h[1-6]|section|footer|header|address|article|nav|ul|ol|table|dd|dt)$/.test(name)) texts.push('\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  const text = texts.join('');
  for (const email of findEmails(text)) emails.add(email);

  const phones = new Map<string, string>();
  for (const tel of tels) {
    const parsed = parsePhoneNumberFromString(tel, country);
    if (parsed?.isValid()) phones.set(parsed.number, parsed.formatNational());
  }
  for (const number of findPhones(text, country)) phones.set(number.number, number.national);
  const socials = new Map<string, string>();
  for (const link of links) {
    const network = socialNetwork(link.href);
    if (network) socials.set(link.href.replace(/\/+$/, ''), network);
  }
  return {
    links,
    emails: [...emails].filter((email) => !NOT_AN_EMAIL_TLD.test(email)),
    phones: [...phones].map(([number, national]) => ({ number, national })),
    socials: [...socials].map(([url, network]) => ({ url, network })),
  };
}

/** Digit runs that could be phone numbers: found with one linear, bounded pattern, then judged by libphonenumber. */
const PHONE_CANDIDATE = /\+?\(?\d[\d \t()./-]{5,24}\d/g;
const MAX_PHONE_CANDIDATES = 500;
const DATE = /^(\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4})$/;

/**
 * Phone numbers in page text, E.164 with national formatting. libphonenumber's finder is slow on long digit-heavy
 * text, so it only sees short candidate snippets (it still rejects dates, prices and the like).
 */
export function findPhones(text: string, country?: CountryCode): Array<{ number: string; national: string }> {
  const found = new Map<string, string>();
  let candidates = 0;
  for (const match of text.matchAll(PHONE_CANDIDATE)) {
    if (++candidates > MAX_PHONE_CANDIDATES) break;
    if (DATE.test(match[0].trim())) continue;
    for (const phone of findPhoneNumbersInText(match[0], country)) found.set(phone.number.number, phone.number.formatNational());
  }
  return [...found].map(([number, national]) => ({ number, national }));
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

const COUNTRY_BY_TLD: Record<string, CountryCode> = {
  de: 'DE',
  at: 'AT',
  ch: 'CH',
  fr: 'FR',
  uk: 'GB',
  nl: 'NL',
  be: 'BE',
  es: 'ES',
  it: 'IT',
  pt: 'PT',
  br: 'BR',
  pl: 'PL',
  se: 'SE',
  no: 'NO',
  dk: 'DK',
  fi: 'FI',
  ie: 'IE',
  au: 'AU',
  nz: 'NZ',
  ca: 'CA',
  mx: 'MX',
  ar: 'AR',
  in: 'IN',
  jp: 'JP',
  us: 'US',
  cz: 'CZ',
  lu: 'LU',
  gr: 'GR',
  ro: 'RO',
  hu: 'HU',
  za: 'ZA',
};

/** Country used to read national phone numbers: from the site's TLD, else the configured default. */
export function countryForHost(hostname: string, fallback?: CountryCode): CountryCode | undefined {
  const tld = hostname.toLowerCase().split('.').pop() ?? '';
  return COUNTRY_BY_TLD[tld] ?? fallback;
}
