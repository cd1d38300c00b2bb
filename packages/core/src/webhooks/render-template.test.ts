import { describe, expect, it } from 'vitest';
import { renderBody, renderPath, renderQuery } from './render-template';
import type { WebhookParameter } from './types';

const params: WebhookParameter[] = [
  { name: 'name', description: 'n' },
  { name: 'count', type: 'number', description: 'c' },
  { name: 'active', type: 'boolean', description: 'a' },
  { name: 'tags', type: 'array', description: 't' },
  { name: 'meta', type: 'object', description: 'm' },
  { name: 'note', required: false, description: 'o' },
];

const body = (template: string, args: Record<string, unknown>) => JSON.parse(renderBody(template, args, params));

describe('bodyTemplate quoting', () => {
  it('strings: quoted placeholder -> JSON string with quotes and line breaks escaped', () => {
    expect(body('{"name": "{{name}}"}', { name: 'say "hi"\nbye\\' })).toEqual({ name: 'say "hi"\nbye\\' });
  });

  it('numbers: unquoted -> JSON number; quoted -> string', () => {
    expect(body('{"n": {{count}}, "s": "{{count}}"}', { count: 42.5 })).toEqual({ n: 42.5, s: '42.5' });
    expect(body('{"n": {{count}}}', { count: '7' })).toEqual({ n: 7 });
  });

  it('booleans: quoted or unquoted -> true/false', () => {
    expect(body('{"a": {{active}}, "b": "{{active}}"}', { active: false })).toEqual({ a: false, b: false });
    expect(body('{"a": "{{active}}"}', { active: 'true' })).toEqual({ a: true });
  });

  it('arrays and objects: quoted or unquoted -> real JSON, nesting kept', () => {
    const meta = { deep: { list: [1, { x: 'y' }] }, n: 2 };
    expect(body('{"t": {{tags}}, "q": "{{tags}}", "m": {{meta}}, "mq": "{{meta}}"}', { tags: ['a', 'b'], meta })).toEqual({
      t: ['a', 'b'],
      q: ['a', 'b'],
      m: meta,
      mq: meta,
    });
    expect(body('{"t": {{tags}}}', { tags: '["x"]' })).toEqual({ t: ['x'] });
  });

  it('unfilled optionals become null, quoted or not; no literal placeholder remains', () => {
    const rendered = renderBody('{"a": "{{note}}", "b": {{note}}, "c": {{undeclared}}}', {}, params);
    expect(JSON.parse(rendered)).toEqual({ a: null, b: null, c: null });
    expect(rendered).not.toContain('{{');
  });

  it('a placeholder inside a longer string is substituted as escaped text', () => {
    expect(body('{"greeting": "Dear {{name}}, you have {{count}} items"}', { name: 'Ana "A"', count: 3 })).toEqual({
      greeting: 'Dear Ana "A", you have 3 items',
    });
  });

  it('injection: a string cannot close its JSON string or add keys', () => {
    const attack = '", "admin": true, "x": "';
    for (const template of ['{"name": "{{name}}"}', '{"name": {{name}}}', '{"name": "x{{name}}y"}']) {
      const result = body(template, { name: attack });
      expect(Object.keys(result)).toEqual(['name']);
      expect(result.name).toContain(attack);
    }
    expect(Object.keys(body('{"n": {{count}}}', { count: '1, "admin": true' }))).toEqual(['n']);
    expect(Object.keys(body('{"m": {{meta}}}', { meta: '{} , "admin": true' }))).toEqual(['m']);
  });

  it('keeps escaped quotes of the template itself', () => {
    expect(body('{"q": "say \\"{{name}}\\""}', { name: 'hi' })).toEqual({ q: 'say "hi"' });
  });
});

describe('path and query placement', () => {
  it('percent-encodes path values so they stay in their segment', () => {
    expect(renderPath('/files/{{name}}/raw', { name: '../admin?x=1#frag' })).toEqual({ path: '/files/..%2Fadmin%3Fx%3D1%23frag/raw' });
    expect(renderPath('/files/{{name}}', { name: '..' })).toEqual({ dotSegment: 'name' });
    expect(renderPath('/files/{{name}}/{{id}}', { name: 'a' })).toEqual({ missing: ['id'] });
  });

  it('substitutes query values textually and removes entries whose placeholder is unfilled', () => {
    expect(
      renderQuery(
        { q: '{{name}}', fixed: 'v', limit: '{{count}}', opt: '{{note}}', both: '{{name}}-{{note}}' },
        { name: 'a&b=c', count: 5 },
      ),
    ).toEqual([
      ['q', 'a&b=c'],
      ['fixed', 'v'],
      ['limit', '5'],
    ]);
  });
});
