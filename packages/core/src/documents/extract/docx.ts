import JSZip from 'jszip';
import mammoth from 'mammoth';
import { ExtractionError } from './extraction-error';

/** Largest total a DOCX may inflate to; past it the file is treated as a decompression bomb. */
export const MAX_DOCX_INFLATED_BYTES = 200 * 1024 * 1024;

/**
 * Text of a DOCX through mammoth. First streams every zip entry through the inflater counting bytes,
 * so a decompression bomb is refused before anything is held in memory (the worker's memory cap is
 * the second line of defence).
 */
export async function docxToText(bytes: Uint8Array, maxInflated = MAX_DOCX_INFLATED_BYTES): Promise<string> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes, { checkCRC32: false });
  } catch (error) {
    throw new ExtractionError('invalid_file', `DOCX is not a valid zip archive: ${(error as Error).message}`);
  }
  if (!zip.file('word/document.xml')) throw new ExtractionError('invalid_file', 'DOCX has no word/document.xml part');
  const tooBig = () =>
    new ExtractionError('invalid_file', `DOCX inflates to more than ${Math.round(maxInflated / 1024 / 1024)} MB (decompression bomb?)`);
  // Fast refusal from the sizes the archive declares; the streaming count below catches archives that lie.
  const declared = Object.values(zip.files).reduce(
    (sum, entry) => sum + ((entry as unknown as { _data?: { uncompressedSize?: number } })._data?.uncompressedSize ?? 0),
    0,
  );
  if (declared > maxInflated) throw tooBig();
  let total = 0;
  for (const entry of Object.values(zip.files)) {
    if (entry.dir) continue;
    await new Promise<void>((resolve, reject) => {
      const stream = entry.nodeStream('nodebuffer');
      stream.on('data', (chunk: Buffer) => {
        total += chunk.length;
        if (total > maxInflated) {
          (stream as unknown as { destroy?: () => void }).destroy?.();
          reject(tooBig());
        }
      });
      stream.on('error', (error: Error) => reject(new ExtractionError('invalid_file', `DOCX is corrupt: ${error.message}`)));
      stream.on('end', () => resolve());
    });
  }
  try {
    const result = await mammoth.extractRawText({ buffer: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
    return result.value;
  } catch (error) {
    throw new ExtractionError('invalid_file', `DOCX could not be read: ${(error as Error).message}`);
  }
}
