/** Builders of test documents: PDFs with pdf-lib, DOCX with jszip, an encrypted PDF and a DOCX bomb. */
import JSZip from 'jszip';
import { PDFDocument, PDFName, StandardFonts } from 'pdf-lib';
import { constants, crc32, deflateRawSync } from 'node:zlib';

/** A PDF with one page per string. */
export async function makePdf(pages: string[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (const text of pages) {
    const page = doc.addPage();
    text.split('\n').forEach((line, i) => page.drawText(line, { x: 50, y: 750 - i * 16, font, size: 11 }));
  }
  return doc.save({ useObjectStreams: false });
}

/**
 * A small PDF (a few hundred KB) with one line of text and a page content stream that inflates to
 * `megabytes` MB (spaces, which pdf.js reads through as it extracts the text).
 */
export async function makePdfBomb(megabytes = 300): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage();
  page.drawText('Before the padding.', { x: 50, y: 750, font, size: 11 });
  const padding = doc.context.stream(zlibOfRepeated(0x20, megabytes), { Filter: 'FlateDecode' });
  const contents = page.node.get(PDFName.of('Contents'));
  page.node.set(PDFName.of('Contents'), doc.context.obj([doc.context.register(padding), contents!]));
  return doc.save({ useObjectStreams: false });
}

/**
 * `megabytes` MB of one byte value, deflated (raw, as in a zip entry): 1 MB compressed once and ended with a full
 * flush (byte-aligned, no history), repeated, then the empty final block. The same stream as deflating it all,
 * in milliseconds instead of seconds (deflating 256 MB at level 9 took the bomb tests about 2 s per bomb).
 */
function rawDeflateOfRepeated(byte: number, megabytes: number): Buffer {
  const segment = deflateRawSync(Buffer.alloc(1 << 20, byte), { level: 9, finishFlush: constants.Z_FULL_FLUSH });
  return Buffer.concat([...Array.from({ length: megabytes }, () => segment), deflateRawSync(Buffer.alloc(0))]);
}

/** The same as a zlib stream (a PDF's FlateDecode): header, raw stream, Adler-32 of the data (closed form for one repeated byte). */
function zlibOfRepeated(byte: number, megabytes: number): Buffer {
  const n = BigInt(megabytes) << 20n;
  const c = BigInt(byte);
  const a = (1n + n * c) % 65521n;
  const b = (n + (c * n * (n + 1n)) / 2n) % 65521n;
  const adler = Buffer.alloc(4);
  adler.writeUInt32BE(Number((b << 16n) | a));
  return Buffer.concat([Buffer.from([0x78, 0xda]), rawDeflateOfRepeated(byte, megabytes), adler]);
}

/** A PDF whose trailer declares Standard encryption with a user password we do not know. */
export async function makeEncryptedPdf(): Promise<Uint8Array> {
  const source = Buffer.from(await makePdf(['secret text'])).toString('latin1');
  const encrypted = source.replace(
    /trailer\s*<</,
    `trailer\n<< /Encrypt << /Filter /Standard /V 1 /R 2 /O <${'ab'.repeat(32)}> /U <${'cd'.repeat(32)}> /P -4 >> /ID [<${'01'.repeat(16)}> <${'01'.repeat(16)}>]`,
  );
  return Buffer.from(encrypted, 'latin1');
}

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

function documentXml(paragraphs: string[]): string {
  const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const body = paragraphs.map((p) => `<w:p><w:r><w:t xml:space="preserve">${escapeXml(p)}</w:t></w:r></w:p>`).join('');
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}</w:body></w:document>`;
}

/** A minimal valid DOCX with one paragraph per string. */
export async function makeDocx(paragraphs: string[], extra: Record<string, Uint8Array | string> = {}): Promise<Uint8Array> {
  const zip = new JSZip();
  zip.file('[Content_Types].xml', CONTENT_TYPES);
  zip.file('_rels/.rels', RELS);
  zip.file('word/document.xml', documentXml(paragraphs));
  for (const [name, data] of Object.entries(extra)) zip.file(name, data);
  return zip.generateAsync({ type: 'uint8array', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/**
 * A small DOCX (about 250 KB) with a part that inflates to `megabytes` MB of zeros. Written with zlib
 * directly (jszip takes seconds to deflate that much).
 */
export function makeDocxBomb(megabytes = 256): Uint8Array {
  const zero = Buffer.alloc(1 << 20);
  let crc = 0;
  for (let i = 0; i < megabytes; i++) crc = crc32(zero, crc);
  const padding = {
    name: 'word/media/padding.bin',
    data: rawDeflateOfRepeated(0, megabytes),
    size: megabytes << 20,
    crc,
  };
  const small = (name: string, text: string) => {
    const data = Buffer.from(text);
    return { name, data: deflateRawSync(data), size: data.length, crc: crc32(data) };
  };
  return writeZip([
    small('[Content_Types].xml', CONTENT_TYPES),
    small('_rels/.rels', RELS),
    small('word/document.xml', documentXml(['looks harmless'])),
    padding,
  ]);
}

function writeZip(entries: Array<{ name: string; data: Buffer; size: number; crc: number }>): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.crc >>> 0, 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(entry.size, 22);
    local.writeUInt16LE(name.length, 26);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(8, 10);
    header.writeUInt32LE(entry.crc >>> 0, 16);
    header.writeUInt32LE(entry.data.length, 20);
    header.writeUInt32LE(entry.size, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    parts.push(local, name, entry.data);
    central.push(header, name);
    offset += local.length + name.length + entry.data.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...parts, ...central, end]);
}
