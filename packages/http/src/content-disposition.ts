/**
 * `Content-Disposition: attachment` for a download (RFC 6266). Header values must be Latin-1 without
 * control characters, so a name outside printable ASCII gets an ASCII stand-in in `filename` (accents
 * dropped, anything else `_`) and its exact UTF-8 form in `filename*` (RFC 5987 percent-encoding).
 */
export function contentDisposition(filename: string): string {
  // A lone surrogate cannot be percent-encoded as UTF-8: it becomes U+FFFD.
  const name = filename.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  const ascii = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]|["\\]/gu, '_');
  if (ascii === name) return `attachment; filename="${ascii}"`;
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
