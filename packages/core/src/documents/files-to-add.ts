import { InvalidRequestError } from '../errors';
import { resolveChunking, type StaticChunking } from './chunking';
import { type Attributes, validateAttributes } from './validate';

/** One file to add: its id plus optional per-file attributes and chunking (wire shapes, validated here). */
export interface FileToAdd {
  file_id: string;
  attributes?: unknown;
  chunking_strategy?: unknown;
}

/** A file to add once validated. */
export interface PreparedFile {
  fileId: string;
  attributes: Attributes | null;
  chunking: StaticChunking;
}

/**
 * The files of a batch body: `file_ids` (with shared `attributes`/`chunking_strategy`) or `files[]`
 * with per-file options, 1..2000; 400 naming the field otherwise. `param` is the field they came in.
 */
export function readBatchEntries(body: Record<string, unknown>): { entries: FileToAdd[]; param: 'files' | 'file_ids' } {
  const { file_ids: ids, files } = body;
  if (ids !== undefined && files !== undefined) {
    throw new InvalidRequestError("Provide either 'file_ids' or 'files', not both.", 'file_ids');
  }
  let entries: FileToAdd[];
  if (files !== undefined) {
    if (!Array.isArray(files) || files.some((f) => typeof f !== 'object' || f === null)) {
      throw new InvalidRequestError("Invalid 'files': expected an array of {file_id, attributes?, chunking_strategy?}.", 'files');
    }
    entries = files as FileToAdd[];
  } else {
    if (ids === undefined) throw new InvalidRequestError("Missing required parameter: 'file_ids'.", 'file_ids');
    if (!Array.isArray(ids) || !ids.every((id) => typeof id === 'string')) {
      throw new InvalidRequestError("Invalid 'file_ids': expected an array of file ids.", 'file_ids');
    }
    entries = ids.map((file_id) => ({ file_id, attributes: body.attributes, chunking_strategy: body.chunking_strategy }));
  }
  const param = files !== undefined ? 'files' : 'file_ids';
  if (entries.length < 1 || entries.length > 2000) {
    throw new InvalidRequestError(`Invalid '${param}': expected between 1 and 2000 files.`, param);
  }
  return { entries, param };
}

/**
 * Validates files to add: each exists in the account (`findFile` answers 404 naming the field),
 * attributes and chunking valid (400 naming e.g. `files[2].attributes`).
 */
export async function prepareFiles(
  entries: FileToAdd[],
  param: string,
  maxInputTokens: number,
  findFile: (fileId: string, param: string) => Promise<unknown>,
): Promise<PreparedFile[]> {
  const out: PreparedFile[] = [];
  for (const [i, entry] of entries.entries()) {
    const where = param === 'file_id' ? '' : `${param}[${i}]`;
    const fileId = entry.file_id;
    if (typeof fileId !== 'string' || !fileId) {
      const name = param === 'file_ids' ? where : where ? `${where}.file_id` : 'file_id';
      throw new InvalidRequestError(`Missing required parameter: '${name}'.`, name);
    }
    await findFile(fileId, param === 'files' ? `${where}.file_id` : param);
    const attributes = validateAttributes(entry.attributes, param === 'files' ? `${where}.attributes` : 'attributes');
    const chunking = resolveChunking(
      entry.chunking_strategy,
      maxInputTokens,
      param === 'files' ? `${where}.chunking_strategy` : 'chunking_strategy',
    );
    out.push({ fileId, attributes, chunking });
  }
  return out;
}
