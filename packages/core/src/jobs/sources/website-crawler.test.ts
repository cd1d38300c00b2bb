import { afterEach, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../egress';
import { createTestServer, respond, type TestServer } from '../../test';
import { crawlSite, siteUrl, type CrawlLimits } from './website-crawler';

const egress = new EgressGuard({ allow: ['127.0.0.1'] });
const limits: CrawlLimits = {
  maxPages: 6,
  maxBytesPerPage: 64 * 1024,
  maxBytesPerSite: 256 * 1024,
  timeoutMs: 5000,
  userAgent: 'FathomBot/1.0',
};
const signal = new AbortController().signal;
const html = (body: string) => `<html><body>${body}</body></html>`;

describe('crawlSite', () => {
  let server: TestServer;
  afterEach(() => server?.close());

  it('reads nothing but robots.txt when robots.txt disallows our agent', async () => {
    server = await createTestServer({
      'GET /robots.txt': (_, response) => respond.text(response, 200, 'User-agent: FathomBot\nDisallow: /\n'),
      'GET /': (_, response) => respond.text(response, 200, html('a@b.test'), 'text/html'),
    });
    const crawl = await crawlSite(egress, server.url, limits, signal);
    expect(crawl).toMatchObject({ status: 'disallowed_by_robots', pages: [] });
    expect(server.requests.map((request) => request.path)).toEqual(['/robots.txt']);
  });

  it('follows a homepage redirect, and guesses contact pages when none is linked', async () => {
    server = await createTestServer({
      'GET /': (_, response) => {
        response.writeHead(301, { location: '/home' });
        response.end();
      },
      'GET /home': (_, response) => respond.text(response, 200, html('<a href="/products">Products</a>'), 'text/html'),
      'GET /impressum': (_, response) =>
        respond.text(response, 200, html('Kontakt: info (at) firma (dot) test, Tel. +49 89 1234567'), 'text/html'),
    });
    const crawl = await crawlSite(egress, server.url, limits, signal);
    expect(crawl.status).toBe('crawled');
    expect(crawl.pages.map((page) => new URL(page.url).pathname)).toEqual(['/home', '/impressum']);
    expect(crawl.pages[1]!.contacts).toMatchObject({ emails: ['info@firma.test'], phones: [{ number: '+49891234567' }] });
    expect(server.requests.map((request) => request.path)).toEqual(['/robots.txt', '/', '/home', '/contact', '/impressum', '/about']);
  });

  it('cuts pages at the byte bound and reports unreadable sites', async () => {
    server = await createTestServer({
      'GET /': (_, response) => respond.text(response, 200, html(`first@acme.test ${'x'.repeat(200_000)} last@acme.test`), 'text/html'),
      'GET /pdf': (_, response) => respond.text(response, 200, '%PDF-1.7', 'application/pdf'),
    });
    const crawl = await crawlSite(egress, server.url, { ...limits, maxPages: 1 }, signal);
    expect(crawl.pages[0]!.contacts.emails).toEqual(['first@acme.test']);
    const pdf = await crawlSite(egress, `${server.url}/pdf`, limits, signal);
    expect(pdf).toMatchObject({ status: 'failed', error: { code: 'site_unreadable' } });
    expect(() => siteUrl('acme.test')).not.toThrow();
    expect(siteUrl('acme.test').href).toBe('https://acme.test/');
  });
});
