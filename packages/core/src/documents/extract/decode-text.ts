import { ExtractionError } from './extraction-error';

/**
 * Bytes of a text file to a string: UTF-8 (BOM stripped) or UTF-16 with a BOM; bytes that are not valid
 * UTF-8 fall back to Windows-1252. NUL bytes mean the file is binary, not text.
 */
export function decodeText(bytes: Uint8Array, label = 'file'): string {
  if (bytes.length >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
    return new TextDecoder(bytes[0] === 0xff ? 'utf-16le' : 'utf-16be').decode(bytes);
  }
  const sample = bytes.subarray(0, 65_536);
  if (sample.includes(0)) throw new ExtractionError('unsupported_file', `${label} is binary, not text`);
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}
