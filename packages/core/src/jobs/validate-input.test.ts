import { describe, expect, it } from 'vitest';
import { findTool } from './catalog';
import { cacheKey, validateToolInput } from './validate-input';

const maps = findTool('maps')!;

describe('validateToolInput', () => {
  it('applies defaults and normalises whitespace', () => {
    expect(validateToolInput(maps, { query: '  bakery   shop ', location: 'Berlin' })).toEqual({
      query: 'bakery shop',
      location: 'Berlin',
      radius_m: 5000,
      limit: 20,
    });
  });

  it('names every missing, unknown and out-of-bounds field in one message', () => {
    try {
      validateToolInput(maps, { limit: 0, extra: 1 });
      expect.unreachable();
    } catch (error: any) {
      expect(error.status).toBe(400);
      expect(error.message).toContain("Missing required parameter: 'query'.");
      expect(error.message).toContain("Missing required parameter: 'location'.");
      expect(error.message).toContain("Unrecognized request argument supplied: 'extra'.");
      expect(error.message).toContain("Invalid 'limit': expected an integer between 1 and 100.");
    }
    expect(() => validateToolInput(findTool('social-profile')!, { platform: 'myspace', username: 'x' })).toThrow(
      /expected one of 'bluesky', 'mastodon', 'github'/,
    );
  });

  it('accepts website URLs and domains, and names a bad entry', () => {
    const contacts = findTool('website-contacts')!;
    expect(
      validateToolInput(contacts, { websites: ['acme.com', 'https://www.acme.de/kontakt', 'http://127.0.0.1:8080'] }).websites,
    ).toHaveLength(3);
    expect(() => validateToolInput(contacts, { websites: ['acme.com', 'not a site'] })).toThrow(
      "Invalid value for 'websites[1]': expected website URL (http or https) or domain such as acme.com.",
    );
    expect(() => validateToolInput(contacts, { websites: ['ftp://acme.com'] })).toThrow(/'websites\[0\]'/);
  });

  it('gives equivalent inputs one cache key', () => {
    const a = validateToolInput(maps, { query: 'Bakery', location: 'Berlin' });
    const b = validateToolInput(maps, { location: ' berlin', query: 'bakery', limit: 20 });
    expect(cacheKey('maps', a)).toBe(cacheKey('maps', b));
    expect(cacheKey('maps', a)).not.toBe(cacheKey('maps', { ...a, limit: 5 }));
  });

  it('refuses a deeply nested input with 400 before recursing into it (embedding apps pass objects directly)', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    expect(() => validateToolInput(findTool('website-contacts')!, { websites: deep })).toThrow(
      expect.objectContaining({ status: 400, message: "Invalid input for tool 'website-contacts': it nests deeper than 32 levels." }),
    );
  });
});
