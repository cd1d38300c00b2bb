import { ExtractionError } from './extraction-error';

/** Text of a PDF through pdf-parse (pdf.js); encrypted and malformed PDFs become clear `invalid_file` errors. */
export async function pdfToText(bytes: Uint8Array): Promise<string> {
  const { PDFParse } = await import('pdf-parse');
  // pdf.js may transfer (detach) the buffer it is given: hand it a copy.
  const parser = new PDFParse({ data: new Uint8Array(bytes), verbosity: 0 });
  try {
    const result = await parser.getText({ pageJoiner: '' });
    return result.text;
  } catch (error) {
    const name = (error as Error).name;
    const message = (error as Error).message;
    if (name === 'PasswordException') throw new ExtractionError('invalid_file', 'PDF is encrypted (password protected)');
    if (name === 'InvalidPDFException' || name === 'FormatError') {
      throw new ExtractionError('invalid_file', `PDF is corrupt: ${message}`);
    }
    throw new ExtractionError('invalid_file', `PDF could not be read: ${message}`);
  } finally {
    await parser.destroy().catch(() => {});
  }
}
