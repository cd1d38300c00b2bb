import { randomBytes } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { InvalidRequestError, NotFoundError } from '../errors';
import { ExtractionError } from './extract/extraction-error';
import type { Files } from './files';
import type { Ingestor } from './ingestor';
import { MAX_FILE_BYTES } from './wire/files';

const IMAGE_TYPES: Record<string, string> = {
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/**
 * Files as the Responses API reads them (`input_file`, `input_image` with `file_id`): the text Fathom
 * extracts for search (PDF, DOCX, HTML, text, code…), in the same worker threads with the same limits.
 */
export class DocumentFileContents {
  constructor(
    private readonly files: Files,
    private readonly ingestor: Ingestor,
  ) {}

  async fileText(accountId: string, fileId: string, param: string): Promise<{ filename: string; text: string }> {
    await this.#file(accountId, fileId, param);
    try {
      return await this.files.withLocalPath(accountId, fileId, async (file, path) => ({
        filename: file.filename,
        text: await this.ingestor.extract(path, file.filename, { account: accountId, interactive: true }),
      }));
    } catch (error) {
      throw unreadable(error, param);
    }
  }

  async checkFile(accountId: string, fileId: string, param: string): Promise<void> {
    await this.#file(accountId, fileId, param);
  }

  async dataText(accountId: string, filename: string, data: Uint8Array, param: string): Promise<string> {
    if (data.byteLength === 0) throw new InvalidRequestError(`Invalid '${param}': the file data is empty or not base64.`, param);
    // Inline `file_data` has the upload limit.
    if (data.byteLength > MAX_FILE_BYTES) {
      throw new InvalidRequestError(`Invalid '${param}': inline files are limited to ${MAX_FILE_BYTES / 1_000_000} MB.`, param);
    }
    const path = join(tmpdir(), `fathom-inline-${randomBytes(8).toString('hex')}${extname(filename)}`);
    await writeFile(path, data);
    try {
      return await this.ingestor.extract(path, filename, { account: accountId, interactive: true });
    } catch (error) {
      throw unreadable(error, param);
    } finally {
      await rm(path, { force: true });
    }
  }

  async imageDataUrl(accountId: string, fileId: string, param: string): Promise<string> {
    const file = await this.#file(accountId, fileId, param);
    const type = IMAGE_TYPES[extname(file.filename).toLowerCase()];
    if (!type) throw new InvalidRequestError(`Invalid '${param}': '${file.filename}' is not a PNG, JPEG, GIF or WebP image.`, param);
    const bytes = await this.files.withLocalPath(accountId, fileId, (_file, path) => readFile(path));
    return `data:${type};base64,${bytes.toString('base64')}`;
  }

  async #file(accountId: string, fileId: string, param: string) {
    try {
      return await this.files.retrieve(accountId, fileId);
    } catch (error) {
      if (error instanceof NotFoundError) throw new NotFoundError('file', fileId, param);
      throw error;
    }
  }
}

function unreadable(error: unknown, param: string): Error {
  if (error instanceof ExtractionError)
    return new InvalidRequestError(`Invalid '${param}': the file could not be read: ${error.message}`, param);
  return error as Error;
}
