import { Parser } from 'htmlparser2';

const SKIP = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);
const BLOCK = /^(p|div|br|li|tr|h[1-6]|section|article|header|footer|nav|ul|ol|table|dd|dt|blockquote|pre|address)$/;

/** Visible text of an HTML fragment or page, with block elements on their own lines. */
export function htmlToText(html: string): string {
  const out: string[] = [];
  let skip = 0;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (SKIP.has(name)) skip++;
        if (name === 'br' || BLOCK.test(name)) out.push('\n');
        if (name === 'a' && attributes.href && !skip) out.push('');
      },
      ontext(text) {
        if (!skip) out.push(text);
      },
      onclosetag(name) {
        if (SKIP.has(name) && skip > 0) skip--;
        if (BLOCK.test(name)) out.push('\n');
      },
    },
    { decodeEntities: true, lowerCaseTags: true },
  );
  parser.write(html);
  parser.end();
  return out
    .join('')
    .replace(/[ \t\f\v\u00a0]+/g, ' ')
    .replace(/\s*\n\s*/g, '\n')
    .trim();
}
