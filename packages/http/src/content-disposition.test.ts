import { describe, expect, it } from 'vitest';
import { contentDisposition } from './content-disposition';

describe('contentDisposition', () => {
  it('keeps a printable ASCII name as is', () => {
    expect(contentDisposition('report 2026.txt')).toBe('attachment; filename="report 2026.txt"');
  });

  it('replaces quotes and backslashes in the ASCII name and keeps them exactly in filename*', () => {
    expect(contentDisposition('say "hi"\\.txt')).toBe(`attachment; filename="say _hi__.txt"; filename*=UTF-8''say%20%22hi%22%5C.txt`);
  });

  it('encodes CR, LF and other control characters so the header cannot be split', () => {
    const header = contentDisposition('a\r\nSet-Cookie: x=1\u0000.txt');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting that none remain
    expect(header).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(header).toBe(`attachment; filename="a__Set-Cookie: x=1_.txt"; filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x%3D1%00.txt`);
  });

  it("percent-encodes RFC 5987 attr-chars that encodeURIComponent leaves (' ( ) *)", () => {
    expect(contentDisposition("it's (draft)*.md")).toBe(`attachment; filename="it's (draft)*.md"`);
    expect(contentDisposition("été's (draft)*.md")).toBe(
      `attachment; filename="ete's (draft)*.md"; filename*=UTF-8''%C3%A9t%C3%A9%27s%20%28draft%29%2A.md`,
    );
  });

  it('turns a lone surrogate into U+FFFD instead of throwing', () => {
    expect(contentDisposition('bad\uD800.txt')).toBe(`attachment; filename="bad_.txt"; filename*=UTF-8''bad%EF%BF%BD.txt`);
  });
});
