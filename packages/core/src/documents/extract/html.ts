import { Parser } from 'htmlparser2';

const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'svg', 'head']);
const BLOCKS = new Set([
  'p',
  'div',
  'br',
  'li',
  'ul',
  'ol',
  'tr',
  'table',
  'section',
  'article',
  'header',
  'footer',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'blockquote',
  'title',
  'dt',
  'dd',
  'hr',
  'main',
  'nav',
  'aside',
  'figcaption',
]);

/** Visible text of an HTML document: no scripts, styles or markup; block elements become line breaks. */
export function htmlToText(html: string): string {
  const parts: string[] = [];
  let skipping = 0;
  let title = '';
  let inTitle = false;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'title') inTitle = true;
        if (SKIPPED.has(name)) skipping++;
        else if (BLOCKS.has(name)) parts.push('\n');
        if (name === 'td' || name === 'th') parts.push(' ');
      },
      ontext(text) {
        if (inTitle) title += text;
        if (!skipping) parts.push(text);
      },
      onclosetag(name) {
        if (name === 'title') inTitle = false;
        if (SKIPPED.has(name)) skipping = Math.max(0, skipping - 1);
        else if (BLOCKS.has(name)) parts.push('\n');
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  const body = parts
    .join('')
    .replace(/[ \t\f\v\r]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  const heading = title.trim();
  return heading && !body.startsWith(heading) ? `${heading}\n\n${body}` : body;
}
