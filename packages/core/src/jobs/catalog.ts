/**
 * The ten data tools of the spec: name, ceiling (pre-authorized per job), input schema and item fields.
 * Every schema is closed (`additionalProperties: false`) and carries types, `required`, defaults and bounds.
 */
export interface ToolDefinition {
  name: string;
  /** `/v1/tools/<name>`. */
  path: string;
  description: string;
  /** The spec's ceiling in currency units, reserved before the job runs. */
  estimated_max_cost: number;
  input_schema: Record<string, unknown>;
  /** Item fields beyond `type` and `value`, per item type. */
  item_fields: Record<string, string[]>;
}

export const TOOL_POLICY =
  'Intended use: legitimate prospecting and enrichment of public data. Requests for data on minors, for tracking or surveilling one private individual, or for bulk lists meant for spam are refused with 400.';

const limit = (fallback: number) => ({
  type: 'integer',
  minimum: 1,
  maximum: 100,
  default: fallback,
  description: 'Maximum number of items (1..100).',
});
const text = (description: string, maxLength = 200) => ({ type: 'string', minLength: 1, maxLength, description });
const SENIORITY = ['intern', 'entry', 'senior', 'manager', 'director', 'vp', 'cxo', 'owner', 'partner'];
const seniority = { type: 'string', enum: SENIORITY, description: `Seniority level: ${SENIORITY.join(', ')}.` };
const object = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  ...extra,
});
const anyOfRequired = (...names: string[]) => ({ anyOf: names.map((name) => ({ required: [name] })) });

const PERSON = ['name', 'headline', 'job_title', 'company', 'location', 'profile_url', 'seniority'];
const COMPANY = ['name', 'website', 'industry', 'size', 'location', 'profile_url', 'description'];

function tool(
  name: string,
  ceiling: number,
  purpose: string,
  input_schema: Record<string, unknown>,
  item_fields: Record<string, string[]>,
): ToolDefinition {
  return {
    name,
    path: `/v1/tools/${name}`,
    description: `${purpose} ${TOOL_POLICY}`,
    estimated_max_cost: ceiling,
    input_schema,
    item_fields,
  };
}

export const TOOL_CATALOG: readonly ToolDefinition[] = [
  tool(
    'pronet-profile',
    2,
    'Search professionals by free text and filters (job title, location, company, seniority).',
    object(
      {
        query: text('Free-text search, e.g. "data engineer fintech".'),
        job_title: text('Current job title.'),
        location: text('City, region or country.'),
        company: text('Current company name.'),
        seniority,
        limit: limit(10),
      },
      [],
      anyOfRequired('query', 'job_title', 'company'),
    ),
    { person: PERSON },
  ),
  tool(
    'pronet-profile-detail',
    1,
    'Full details of specific people by profile URL or identifier.',
    object(
      {
        profiles: {
          type: 'array',
          minItems: 1,
          maxItems: 100,
          items: text('Profile URL or identifier.', 500),
          description: 'Profile URLs or identifiers.',
        },
      },
      ['profiles'],
    ),
    { person: [...PERSON, 'experience', 'education', 'skills', 'about'] },
  ),
  tool(
    'pronet-employees',
    10,
    'Employees of one or more companies, filtered by job title and seniority.',
    object(
      {
        companies: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: text('Company profile URL or name.', 500),
          description: 'Company profile URLs or names.',
        },
        job_title: text('Job title filter.'),
        seniority,
        limit: limit(25),
      },
      ['companies'],
    ),
    { person: PERSON },
  ),
  tool(
    'pronet-company',
    1,
    'Company profile by URL, or discovery by name.',
    object(
      {
        company_url: { ...text('Company profile URL.', 500), format: 'uri' },
        name: text('Company name to discover.'),
        location: text('Location to disambiguate the name.'),
        limit: limit(5),
      },
      [],
      anyOfRequired('company_url', 'name'),
    ),
    { company: COMPANY },
  ),
  tool(
    'pronet-jobs',
    4,
    'Jobs by keyword, location and filters.',
    object(
      {
        keyword: text('Keyword, e.g. "backend engineer".'),
        location: text('City, region or country.'),
        company: text('Hiring company.'),
        remote: { type: 'boolean', description: 'Only remote jobs.' },
        employment_type: {
          type: 'string',
          enum: ['full_time', 'part_time', 'contract', 'temporary', 'internship'],
          description: 'Employment type.',
        },
        posted_within_days: { type: 'integer', minimum: 1, maximum: 30, description: 'Posted in the last N days (1..30).' },
        limit: limit(25),
      },
      ['keyword'],
    ),
    { job: ['company', 'location', 'url', 'posted_at', 'employment_type', 'remote', 'salary'] },
  ),
  tool(
    'leads-finder',
    6,
    'B2B lead list: people by job title and location plus company data.',
    object(
      {
        job_title: text('Job title of the people to find, e.g. "head of marketing".'),
        location: text('City, region or country.'),
        industry: text('Industry of the company.'),
        company_size: {
          type: 'string',
          enum: ['1-10', '11-50', '51-200', '201-500', '501-1000', '1001-5000', '5001+'],
          description: 'Company head count.',
        },
        seniority,
        keyword: text('Free-text keyword.'),
        limit: limit(25),
      },
      ['job_title'],
    ),
    { lead: [...PERSON, 'email', 'phone', 'company_website', 'company_industry', 'company_size'] },
  ),
  tool(
    'maps',
    2,
    'Local businesses with phone, address, website, category, ratings (OpenStreetMap by default).',
    object(
      {
        query: text('What to find, e.g. "bakery" or "dentist".'),
        location: text('Where: a city, district or address, e.g. "Kreuzberg, Berlin".'),
        radius_m: {
          type: 'integer',
          minimum: 100,
          maximum: 50000,
          default: 5000,
          description: 'Search radius around the location in metres (100..50000).',
        },
        limit: limit(20),
      },
      ['query', 'location'],
    ),
    { place: ['phone', 'address', 'website', 'category', 'rating', 'lat', 'lon', 'source_url'] },
  ),
  tool(
    'website-contacts',
    0.8,
    'Scans company websites (homepage plus contact, about, imprint and team pages, robots.txt honoured) for emails, phone numbers and social networks. Cost per site crawled.',
    object(
      {
        websites: {
          type: 'array',
          minItems: 1,
          maxItems: 20,
          items: {
            type: 'string',
            minLength: 1,
            maxLength: 2000,
            pattern: '^(https?://\\S+|[^\\s/:?#]+\\.[^\\s]+)$',
            description: 'Website URL (http or https) or domain such as acme.com.',
          },
          description: 'Company websites (URLs or domains), 1..20.',
        },
        max_pages_per_site: { type: 'integer', minimum: 1, maximum: 20, default: 6, description: 'Pages fetched per site (1..20).' },
      },
      ['websites'],
    ),
    { email: ['site', 'source_url'], phone: ['site', 'source_url', 'national'], social: ['site', 'source_url', 'network'] },
  ),
  tool(
    'social-profile',
    0.5,
    'Public profiles by username from public APIs (Bluesky, Mastodon, GitHub): name, followers, bio, recent posts.',
    object(
      {
        platform: { type: 'string', enum: ['bluesky', 'mastodon', 'github'], description: 'Network: bluesky, mastodon or github.' },
        username: text('Handle: "alice.bsky.social", "alice@mastodon.social" or a GitHub login.', 300),
        include_posts: { type: 'boolean', default: true, description: 'Include recent public posts.' },
        posts_limit: { type: 'integer', minimum: 1, maximum: 50, default: 5, description: 'Recent posts to include (1..50).' },
      },
      ['platform', 'username'],
    ),
    { profile: ['platform', 'name', 'bio', 'followers', 'following', 'posts_count', 'url', 'avatar', 'posts'] },
  ),
  tool(
    'nl-data',
    0.5,
    'Natural-language description of the data needed; a model plans the extraction, pages are fetched and items extracted and validated against the plan.',
    object(
      {
        description: text('What data you need, e.g. "opening hours of the museums listed on this page".', 2000),
        urls: {
          type: 'array',
          maxItems: 10,
          items: { type: 'string', format: 'uri', maxLength: 2000 },
          description: 'Pages to read (up to 10); without them the model proposes pages.',
        },
        limit: limit(20),
      },
      ['description'],
    ),
    { '<plan item_type>': ['fields of the plan schema', 'source_url'] },
  ),
];

const BY_NAME = new Map(TOOL_CATALOG.map((definition) => [definition.name, definition]));

/** The definition of one tool, or undefined. */
export function findTool(name: string): ToolDefinition | undefined {
  return BY_NAME.get(name);
}

export const TOOL_NAMES = TOOL_CATALOG.map((definition) => definition.name);
