import type { Readable } from 'node:stream';
import { Readable as ReadableStream } from 'node:stream';
import type { FileObject, FileUploadParams, StagedUpload } from '../documents';
import type { BatchesRepository, BatchRow } from './batches-repository';

/** What batches need of `fathom.files`: read the input file of the account, write its output files. */
export interface BatchFiles {
  retrieve(accountId: string, fileId: string): Promise<FileObject>;
  content(accountId: string, fileId: string): Promise<{ file: FileObject; stream: Readable }>;
  stage(source: Readable): Promise<StagedUpload>;
  commit(accountId: string, staged: StagedUpload, params: FileUploadParams): Promise<FileObject>;
}

/** Output lines read from the database per query while a file is written. */
const PAGE = 1000;

/** The recorded output lines of one state, in input order, as a stream of JSONL bytes (a page in memory at a time). */
function outputStream(repository: BatchesRepository, batchId: string, state: 'completed' | 'failed'): Readable {
  async function* lines(): AsyncGenerator<string> {
    let after = -1;
    for (;;) {
      const rows = await repository.outputs(batchId, state, after, PAGE);
      if (rows.length === 0) return;
      yield `${rows.map((row) => row.output).join('\n')}\n`;
      after = rows[rows.length - 1]!.line;
      if (rows.length < PAGE) return;
    }
  }
  return ReadableStream.from(lines());
}

/**
 * Writes the batch's output file (answered lines) and error file (failed lines) as files of the account
 * with purpose `batch_output`, each only when it has a line and not yet written (a run that resumes
 * finalizing keeps a file an earlier run recorded), and records their ids on the batch.
 */
export async function writeOutputFiles(files: BatchFiles, repository: BatchesRepository, batch: BatchRow, owner: string): Promise<void> {
  const kinds = [
    { kind: 'output', state: 'completed', has: batch.output_file_id, count: batch.completed },
    { kind: 'error', state: 'failed', has: batch.error_file_id, count: batch.failed },
  ] as const;
  for (const { kind, state, has, count } of kinds) {
    if (has || count === 0) continue;
    const staged = await files.stage(outputStream(repository, batch.id, state));
    const file = await files.commit(batch.account_id, staged, {
      purpose: 'batch_output',
      filename: `${batch.id}_${kind}.jsonl`,
      ...(batch.output_expires_seconds ? { expires_after: { anchor: 'created_at', seconds: batch.output_expires_seconds } } : {}),
    });
    await repository.setFile(batch.id, owner, kind, file.id);
  }
}
