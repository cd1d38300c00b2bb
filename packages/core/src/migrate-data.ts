import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDocumentsRepositories } from './documents/documents-repositories';
import { DiskFileBlobs, SqlFileBlobs } from './documents/file-blobs';
import type { Embedder } from './embeddings';
import { FATHOM_SCHEMAS } from './fathom';
import type { Logger } from './internal/logger';
import { copyTables, PostgresDatabase, SqliteDatabase, type TableCopy } from './storage';
import { PgVectorIndex, VectorIndex } from './vector';

export interface MigrationReport {
  tables: TableCopy[];
  /** Chunks per store: in the SQLite index, and in PostgreSQL after the copy. */
  vectors: Array<{ storeId: string; source: number; target: number }>;
  files: { source: number; target: number };
  /** True when every count matches. */
  ok: boolean;
}

/** The embedder a store was built with, for writing its existing vectors (nothing is embedded again). */
function recordedEmbedder(id: string, dimensions: number): Embedder {
  return {
    id,
    dimensions,
    maxInputTokens: 512,
    embed: () => Promise.reject(new Error('migrate-data copies existing vectors; it never embeds')),
    countTokens: (text) => text.length,
    tokenize: () => [],
  };
}

/**
 * `fathom migrate-data --to postgres://…`: copies a SQLite data dir into an empty PostgreSQL database
 * (every table, the stores' chunks with their vectors — no re-embedding —, the file bytes), then
 * compares the counts. The PostgreSQL database must hold no account yet; the SQLite data dir is only read.
 */
export async function migrateData(options: {
  dataDir: string;
  databaseUrl: string;
  log: Logger;
  progress?: (line: string) => void;
}): Promise<MigrationReport> {
  const progress = options.progress ?? (() => {});
  const source = new SqliteDatabase({ location: join(options.dataDir, 'fathom.db'), schemas: FATHOM_SCHEMAS });
  const target = await PostgresDatabase.open({ url: options.databaseUrl, schemas: FATHOM_SCHEMAS });
  const scratch = await mkdtemp(join(tmpdir(), 'fathom-migrate-'));
  try {
    const existing = (await target.get<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'))!.n;
    if (existing > 0)
      throw new Error(`The PostgreSQL database already holds ${existing} account(s); migrate-data copies into an empty database only.`);

    const skip = new Set(['schema_migrations', 'vector_chunks', 'vector_files', 'vector_index_meta', 'file_blobs']);
    const tables = await copyTables(source, target, {
      skip,
      onTable: (copy) => progress(`${copy.table}: ${copy.target}/${copy.source} rows`),
    });

    const sqliteIndex = new VectorIndex({ db: source, embedder: recordedEmbedder('none', 1), dataDir: scratch, log: options.log });
    const vectors: MigrationReport['vectors'] = [];
    for await (const store of sqliteIndex.exportStores()) {
      const pgIndex = new PgVectorIndex({ db: target, embedder: recordedEmbedder(store.embedderId, store.dimensions), log: options.log });
      let sourceChunks = 0;
      for await (const file of store.files) {
        sourceChunks += file.chunks.length;
        await pgIndex.addFileChunks({
          storeId: store.storeId,
          fileId: file.fileId,
          filename: file.filename,
          attributes: file.attributes,
          chunks: file.chunks,
        });
      }
      const targetChunks = (await pgIndex.storeInfo(store.storeId))?.chunks ?? 0;
      vectors.push({ storeId: store.storeId, source: sourceChunks, target: targetChunks });
      progress(`store ${store.storeId}: ${targetChunks}/${sourceChunks} chunks (${store.embedderId})`);
      await pgIndex.close();
    }
    await sqliteIndex.close();

    // File bytes: from <data dir>/files into file_blobs, one file at a time.
    const disk = new DiskFileBlobs(join(options.dataDir, 'files'));
    const database = new SqlFileBlobs(target, scratch);
    const sourceFiles = createDocumentsRepositories(source, { dataDir: options.dataDir }).files;
    const files = { source: 0, target: 0 };
    for (let after: string | null = null; ; ) {
      const ids = await sourceFiles.idsAfter(after, 500);
      if (ids.length === 0) break;
      for (const id of ids) {
        files.source++;
        if (!(await disk.has(id))) continue;
        await disk.withLocalPath(id, async (path) => {
          const copy = join(scratch, id);
          await copyFile(path, copy);
          await database.put(id, copy);
        });
        if (await database.has(id)) files.target++;
      }
      after = ids[ids.length - 1]!;
    }
    progress(`file bytes: ${files.target}/${files.source} files`);
    const ok =
      tables.every((copy) => copy.source === copy.target) &&
      vectors.every((store) => store.source === store.target) &&
      files.source === files.target;
    return { tables, vectors, files, ok };
  } finally {
    await rm(scratch, { recursive: true, force: true });
    await target.close();
    await source.close();
  }
}
