import { InvalidRequestError } from '../errors';
import { resolveChunking, type StaticChunking } from './chunking';
import type { FileBatchCreateParams } from './wire/file-batches';
import type { Attributes } from './wire/vector-store-files';
import type { ChunkingStrategyParam } from './wire/vector-stores';

/** One file to add, as a request names it: its id plus optional attributes and chunking. */
export interface FileToAdd {
  file_id: string;
  attributes?: Attributes | null;
  chunking_strategy?: ChunkingStrategyParam | null;
}

/** A file to add once checked: it exists, and its chunking is resolved to sizes. */
export interface PreparedFile {
  fileId: string;
  attributes: Attributes | null;
  chunking: StaticChunking;
}

/**
 * The files of a batch: `file_ids` (sharing `attributes` and `chunking_strategy`) or `files[]` with
 * per-file options. Exactly one of the two (400 naming `file_ids` otherwise); `param` is the field they
 * came in.
 */
export function batchEntries(params: FileBatchCreateParams): { entries: FileToAdd[]; param: 'files' | 'file_ids' } {
  const { file_ids: ids, files } = params;
  if (ids !== undefined && files !== undefined) {
    throw new InvalidRequestError("Provide either 'file_ids' or 'files', not both.", 'file_ids');
  }
  if (files !== undefined) return { entries: files, param: 'files' };
  if (ids === undefined) throw new InvalidRequestError("Missing required parameter: 'file_ids'.", 'file_ids', 'missing_required_parameter');
  const { attributes, chunking_strategy } = params;
  return { entries: ids.map((file_id) => ({ file_id, attributes, chunking_strategy })), param: 'file_ids' };
}

/**
 * Checks files to add: each exists in the account (`findFile` answers 404 naming the field, e.g.
 * `files[2].file_id`), and each chunking keeps its overlap within half the chunk size (400 naming e.g.
 * `files[2].chunking_strategy.static.chunk_overlap_tokens`).
 */
export async function prepareFiles(
  entries: readonly FileToAdd[],
  param: 'file_id' | 'file_ids' | 'files',
  maxInputTokens: number,
  findFile: (fileId: string, param: string) => Promise<unknown>,
): Promise<PreparedFile[]> {
  const out: PreparedFile[] = [];
  for (const [i, entry] of entries.entries()) {
    const where = param === 'files' ? `files[${i}].` : '';
    await findFile(entry.file_id, param === 'files' ? `${where}file_id` : param);
    const chunking = resolveChunking(entry.chunking_strategy, maxInputTokens, `${where}chunking_strategy`);
    out.push({ fileId: entry.file_id, attributes: entry.attributes ?? null, chunking });
  }
  return out;
}
