/** Piscina task: reads one stored file and extracts its text, off the main thread, under the pool's memory cap. */
import { readFile } from 'node:fs/promises';
import { ExtractionError } from './extraction-error';
import { extractText } from './extract-text';

export interface ExtractTask {
  path: string;
  filename: string;
}

export type ExtractResult = { ok: true; text: string } | { ok: false; code: string; message: string };

export default async function extract(task: ExtractTask): Promise<ExtractResult> {
  try {
    const bytes = await readFile(task.path);
    return { ok: true, text: await extractText(task.filename, bytes) };
  } catch (error) {
    if (error instanceof ExtractionError) return { ok: false, code: error.code, message: error.message };
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, code: 'invalid_file', message: 'file was deleted' };
    return { ok: false, code: 'server_error', message: `text extraction failed: ${(error as Error).message}` };
  }
}
