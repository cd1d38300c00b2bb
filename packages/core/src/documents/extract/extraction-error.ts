/** Codes of a store file's `last_error` (OpenAI's). */
export type IngestionErrorCode = 'unsupported_file' | 'invalid_file' | 'server_error';

/** A file that cannot be turned into text; its message says what was wrong and ends up in `last_error`. */
export class ExtractionError extends Error {
  readonly code: IngestionErrorCode;
  constructor(code: IngestionErrorCode, message: string) {
    super(message);
    this.name = 'ExtractionError';
    this.code = code;
  }
}

/** What a parse whose V8 heap hit its cap says. */
export function memoryMessage(memoryMb: number): string {
  return `parsing the file needed more than ${memoryMb} MB of memory (decompression bomb?)`;
}

/** What a parse whose decompressed data (ArrayBuffers, outside the heap) hit the same cap says. */
export function decompressedMessage(memoryMb: number): string {
  return `the data the file decompresses to needed more than ${memoryMb} MB of memory (decompression bomb?)`;
}
