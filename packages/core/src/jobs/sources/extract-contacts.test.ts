import { describe, expect, it } from 'vitest';
import { countryForHost, deobfuscateEmails, extractContacts, findEmails, socialNetwork } from './extract-contacts';

describe('extractContacts', () => {
  it('undoes common email obfuscations', () => {
    expect(deobfuscateEmails('name [at] domain [dot] com')).toBe('name@domain.com');
    expect(deobfuscateEmails('name(at)domain(dot)co(dot)uk')).toBe('name@domain.co.uk');
    expect(deobfuscateEmails('write to info AT acme DOT org today')).toBe('write to info@acme.org today');
    expect(findEmails('a {at} b {dot} de, c@d.io and logo@2x.png')).toEqual(['c@d.io', 'a@b.de']);
  });

  it('reads mailto, tel, entities, Cloudflare-protected addresses and social links, skipping scripts', () => {
    const html = `<a href="mailto:Team@Acme.test?subject=x">mail</a><a href="tel:+4930123456">call</a>
      <p>jobs&#64;acme.test</p><span class="__cf_email__" data-cfemail="422b2c242d0223212f276c36273136"></span>
      <script>var a = "hidden@acme.test"</script>
      <a href="https://www.facebook.com/acme/">fb</a><a href="https://www.facebook.com/sharer.php?u=x">share</a><a href="/contact">Contact</a>`;
    const contacts = extractContacts(html, 'https://acme.test/', 'DE');
    expect(contacts.emails.sort()).toEqual(['info@acme.test', 'jobs@acme.test', 'team@acme.test']);
    expect(contacts.phones).toEqual([{ number: '+4930123456', national: '030 123456' }]);
    expect(contacts.socials).toEqual([{ url: 'https://www.facebook.com/acme', network: 'facebook' }]);
    expect(contacts.links.map((link) => link.href)).toContain('https://acme.test/contact');
  });

  it('finds national numbers with the country of the site', () => {
    const contacts = extractContacts('<p>Telefon: 030 1234567</p>', 'https://beispiel.de/', countryForHost('beispiel.de'));
    expect(contacts.phones.map((phone) => phone.number)).toEqual(['+49301234567']);
    expect(countryForHost('example.com')).toBeUndefined();
    expect(socialNetwork('https://x.com/intent/tweet?text=hi')).toBeNull();
    expect(socialNetwork('https://linkedin.com/company/acme')).toBe('linkedin');
  });
});

describe('findPhones and findEmails on hostile pages', () => {
  it('stay fast on long tokens and digit runs, and skip dates', async () => {
    const { findPhones } = await import('./extract-contacts');
    const started = Date.now();
    extractContacts(`<p>${'x'.repeat(200_000)} ${'1 '.repeat(100_000)} ${'a.'.repeat(100_000)} ok@acme.test</p>`, 'https://a.test/', 'DE');
    expect(Date.now() - started).toBeLessThan(3000);
    expect(findPhones('Tel. +49 (0)30 7654321, Datum 2024-01-15, am 15.01.2024', 'DE')).toEqual([
      { number: '+49307654321', national: '030 7654321' },
    ]);
  });
});
