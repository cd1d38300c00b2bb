import { describe, expect, it } from 'vitest';
import { makeDocx, makeDocxBomb, makeEncryptedPdf, makePdf } from '../__fixtures__/make-documents';
import { docxToText } from './docx';
import { extractText } from './extract-text';

const utf8 = (text: string) => new TextEncoder().encode(text);
const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (error) {
    return { code: (error as { code: string }).code, message: (error as Error).message };
  }
  throw new Error('expected a failure');
};

describe('extractText', () => {
  it('reads PDF pages with pdf-parse', async () => {
    const text = await extractText('report.pdf', await makePdf(['Quarterly revenue ID-4471', 'Second page']));
    expect(text).toContain('Quarterly revenue ID-4471');
    expect(text).toContain('Second page');
  });

  it('reads DOCX paragraphs with mammoth', async () => {
    const text = await extractText('memo.docx', await makeDocx(['First paragraph about otters.', 'Second one.']));
    expect(text).toContain('First paragraph about otters.');
    expect(text).toContain('Second one.');
  });

  it('keeps the visible text of HTML only', async () => {
    const html =
      '<html><head><title>Guide</title><style>p{color:red}</style></head><body><script>var secret=1</script><p>Hello &amp; welcome</p><div>Line two</div></body></html>';
    const text = await extractText('page.html', utf8(html));
    expect(text).toContain('Hello & welcome');
    expect(text).toContain('Line two');
    expect(text).toContain('Guide');
    expect(text).not.toContain('secret');
    expect(text).not.toContain('color:red');
  });

  it('reads JSON, CSV, Markdown and source code as text', async () => {
    expect(await extractText('data.json', utf8('{"sku":"AB-12","qty":3}'))).toContain('"sku": "AB-12"');
    expect(await extractText('table.csv', utf8('name,city\n"Smith, Jane",Lisbon\n'))).toBe('name: Smith, Jane; city: Lisbon');
    expect(await extractText('notes.md', utf8('# Title\n\nBody'))).toBe('# Title\n\nBody');
    expect(await extractText('main.py', utf8('def f():\n    return 42\n'))).toContain('return 42');
    expect(await extractText('README', utf8('plain text without extension'))).toBe('plain text without extension');
  });

  it('fails corrupt, encrypted, empty and unsupported files with a code and a clear message', async () => {
    expect(await failure(extractText('bad.pdf', utf8('%PDF-1.4 garbage')))).toMatchObject({
      code: 'invalid_file',
      message: /PDF is corrupt/,
    });
    expect(await failure(extractText('locked.pdf', await makeEncryptedPdf()))).toEqual({
      code: 'invalid_file',
      message: 'PDF is encrypted (password protected)',
    });
    expect(await failure(extractText('empty.txt', new Uint8Array()))).toEqual({ code: 'invalid_file', message: 'file is empty' });
    expect(await failure(extractText('blank.txt', utf8('  \n\t ')))).toEqual({ code: 'invalid_file', message: 'file contains no text' });
    expect(await failure(extractText('slides.pptx', utf8('PK...')))).toMatchObject({
      code: 'unsupported_file',
      message: /'\.pptx' are not supported/,
    });
    expect(await failure(extractText('blob.bin', new Uint8Array([1, 0, 2, 0])))).toMatchObject({
      code: 'unsupported_file',
      message: /binary/,
    });
    expect(await failure(extractText('broken.docx', utf8('not a zip')))).toMatchObject({
      code: 'invalid_file',
      message: /DOCX is not a valid zip/,
    });
    expect(await failure(extractText('bad.json', utf8('{"a":')))).toMatchObject({ code: 'invalid_file', message: /JSON is not valid/ });
  });

  it('refuses a DOCX that inflates past the limit before mammoth reads it', async () => {
    const bomb = makeDocxBomb(8);
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect(await failure(docxToText(bomb, 4 * 1024 * 1024))).toMatchObject({ code: 'invalid_file', message: /inflates to more than 4 MB/ });
  });
});
