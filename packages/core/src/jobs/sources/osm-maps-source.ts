import type { ToolItem, ToolOutput, ToolRunOptions, ToolSource } from '../types';
import { providerJson } from './provider-request';
import { SourceError } from './source-error';

export interface OsmMapsSourceOptions {
  /** `FATHOM_TOOLS_NOMINATIM_URL`, default `https://nominatim.openstreetmap.org`. */
  nominatimURL?: string;
  /** `FATHOM_TOOLS_OVERPASS_URL`, default `https://overpass-api.de/api/interpreter`. */
  overpassURL?: string;
  /** `FATHOM_TOOLS_USER_AGENT`: Nominatim's usage policy asks for an identifying User-Agent. */
  userAgent?: string;
  /** `FATHOM_TOOLS_MAPS_PRICE_PER_PLACE`: cost per place returned; default 0.02. */
  pricePerPlace?: number;
  /** A `fetch` to use instead of undici's request (tests, proxies). */
  fetch?: typeof fetch;
}

const CATEGORY_KEYS = ['amenity', 'shop', 'craft', 'office', 'healthcare', 'tourism', 'leisure', 'cuisine'];

/** Singular forms so "bakeries" matches `shop=bakery` and "dentists" `amenity=dentist`. */
function stems(query: string): string {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const singular = words.map((word) =>
    word
      .replace(/ies$/, 'y')
      .replace(/(ch|sh|x)es$/, '$1')
      .replace(/([^s])s$/, '$1'),
  );
  return [...new Set([query.toLowerCase(), singular.join(' '), singular.join('_')])].map(escapeRegex).join('|');
}

function escapeRegex(text: string): string {
  return text.replace(/[\\.*+?^${}()|[\]"]/g, (char) => (char === '"' ? '\\"' : `\\\\${char}`));
}

/** The `maps` tool's input as `validateToolInput` checked it against its input_schema (defaults applied). */
type MapsInput = {
  query: string;
  location: string;
  radius_m: number;
  limit: number;
};

/**
 * Local businesses from OpenStreetMap: Nominatim geocodes `location`, Overpass finds named places
 * within `radius_m` whose name or category matches `query`, nearest first. OSM has no ratings;
 * `rating` carries a hotel's `stars` when tagged, else null.
 */
export class OsmMapsSource implements ToolSource {
  readonly name = 'openstreetmap';
  readonly #options: OsmMapsSourceOptions;

  constructor(options: OsmMapsSourceOptions = {}) {
    this.#options = options;
  }

  async run({ input: raw, signal }: ToolRunOptions): Promise<ToolOutput> {
    const input = raw as MapsInput;
    const fetchImpl = this.#options.fetch;
    const headers = { 'user-agent': this.#options.userAgent ?? 'Fathom data tools (self-hosted)' };
    const nominatim = (this.#options.nominatimURL ?? 'https://nominatim.openstreetmap.org').replace(/\/+$/, '');
    const places = await providerJson<Array<{ lat: string; lon: string; display_name?: string }>>(
      fetchImpl,
      `${nominatim}/search?${new URLSearchParams({ q: input.location, format: 'jsonv2', limit: '1' })}`,
      { headers, signal, provider: 'Nominatim' },
    );
    const center = places[0];
    if (!center) throw new SourceError('location_not_found', `Nominatim found no place named '${input.location}'; nothing was charged.`);
    const lat = Number(center.lat);
    const lon = Number(center.lon);
    const around = `(around:${input.radius_m},${lat},${lon})`;
    const pattern = stems(input.query);
    const clauses = ['name', ...CATEGORY_KEYS].map((key) => `nwr${around}["name"]["${key}"~"${pattern}",i];`).join('\n  ');
    const query = `[out:json][timeout:25];\n(\n  ${clauses}\n);\nout center tags ${Math.min(input.limit * 5, 500)};`;
    const answer = await providerJson<{ elements?: OverpassElement[] }>(
      fetchImpl,
      this.#options.overpassURL ?? 'https://overpass-api.de/api/interpreter',
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ data: query }).toString(),
        signal,
        provider: 'Overpass',
      },
    );
    const seen = new Set<string>();
    const items = (answer.elements ?? [])
      .filter((element) => element.tags?.name && !seen.has(`${element.type}/${element.id}`) && seen.add(`${element.type}/${element.id}`))
      .map((element) => toPlace(element))
      .sort((a, b) => distance(a, lat, lon) - distance(b, lat, lon))
      .slice(0, input.limit);
    return {
      items,
      cost: items.length * (this.#options.pricePerPlace ?? 0.02),
      details: { center: { lat, lon, name: center.display_name ?? input.location } },
    };
  }
}

interface OverpassElement {
  type: string;
  id: number;
  lat?: number;
  lon?: number;
  center?: { lat: number; lon: number };
  tags?: Record<string, string>;
}

function toPlace(element: OverpassElement): ToolItem & { lat: number | null; lon: number | null } {
  const tags = element.tags ?? {};
  const street = [tags['addr:street'], tags['addr:housenumber']].filter(Boolean).join(' ');
  const city = [tags['addr:postcode'], tags['addr:city']].filter(Boolean).join(' ');
  const categoryKey = CATEGORY_KEYS.find((key) => tags[key]);
  const stars = Number(tags.stars);
  return {
    type: 'place',
    value: tags.name!,
    phone: tags.phone ?? tags['contact:phone'] ?? null,
    address: [street, city].filter(Boolean).join(', ') || tags['addr:full'] || null,
    website: tags.website ?? tags['contact:website'] ?? tags.url ?? null,
    category: categoryKey ? `${categoryKey}=${tags[categoryKey]}` : null,
    rating: Number.isFinite(stars) ? stars : null,
    lat: element.lat ?? element.center?.lat ?? null,
    lon: element.lon ?? element.center?.lon ?? null,
    email: tags.email ?? tags['contact:email'] ?? null,
    opening_hours: tags.opening_hours ?? null,
    source_url: `https://www.openstreetmap.org/${element.type}/${element.id}`,
  };
}

function distance(place: { lat: number | null; lon: number | null }, lat: number, lon: number): number {
  if (place.lat === null || place.lon === null) return Number.POSITIVE_INFINITY;
  return (place.lat - lat) ** 2 + ((place.lon - lon) * Math.cos((lat * Math.PI) / 180)) ** 2;
}
