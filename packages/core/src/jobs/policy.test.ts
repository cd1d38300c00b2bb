import { describe, expect, it } from 'vitest';
import { policyRefusal } from './policy';

describe('data tools use policy', () => {
  it('refuses data on minors for people tools', () => {
    expect(policyRefusal('leads-finder', { job_title: 'students', keyword: 'teenagers' })).toMatch(/minors/);
    expect(policyRefusal('nl-data', { description: 'emails of 14-year-olds in my town' })).toMatch(/minors/);
    expect(policyRefusal('pronet-profile', { query: 'people under 18 in Berlin' })).toMatch(/minors/);
    expect(policyRefusal('social-profile', { platform: 'bluesky', username: 'x', note: 'instagram accounts of kids' } as never)).toMatch(
      /minors/,
    );
  });

  it('refuses tracking one private individual', () => {
    expect(policyRefusal('nl-data', { description: 'find where does she live, my neighbour' })).toMatch(/track/);
    expect(policyRefusal('social-profile', { platform: 'github', username: 'x', note: 'stalk him' } as never)).toMatch(/track/);
    expect(policyRefusal('nl-data', { description: 'monitor my ex every day' })).toMatch(/track/);
  });

  it('refuses bulk lists for spam', () => {
    expect(policyRefusal('leads-finder', { job_title: 'CEO', keyword: 'mass email campaign' })).toMatch(/spam/);
    expect(policyRefusal('website-contacts', { websites: ['harvest emails for unsolicited offers'] })).toMatch(/spam/);
  });

  it('lets ordinary prospecting through', () => {
    expect(policyRefusal('maps', { query: 'kids toy store', location: 'Berlin' })).toBeNull();
    expect(policyRefusal('leads-finder', { job_title: 'head of marketing', location: 'Munich', industry: 'fintech' })).toBeNull();
    expect(policyRefusal('pronet-jobs', { keyword: 'track and field coach' })).toBeNull();
    expect(policyRefusal('nl-data', { description: 'Opening hours of the museums listed on this page' })).toBeNull();
    expect(policyRefusal('pronet-company', { name: 'Childrens Hospital Foundation' })).toBeNull();
    expect(policyRefusal('leads-finder', { job_title: 'marketing manager', industry: 'kids fashion' })).toBeNull();
    expect(policyRefusal('pronet-employees', { companies: ['Kids Toys GmbH'], job_title: 'head of sales' })).toBeNull();
  });
});
