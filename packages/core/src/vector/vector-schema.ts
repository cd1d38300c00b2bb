import type { Schema } from '../db';

/**
 * Tables of the vector component. SQLite is the source of truth: every chunk with its text and
 * vector (float32 blob), so HNSW files are a cache that can always be rebuilt. `vector_chunks.id` is
 * the HNSW label (AUTOINCREMENT: labels are never reused). `vector_fts` is a contentless FTS5 index
 * of the chunk text and store, kept in step by triggers; `vector_fts_vocab` exposes document
 * frequencies for query pruning. `vector_index_meta` remembers which embedder built each store.
 */
export const vectorSchema: Schema = {
  component: 'vector',
  postgres: [],
  sqlite: [
    `CREATE TABLE vector_chunks (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      store_id TEXT NOT NULL,
      file_id TEXT NOT NULL,
      chunk_index INTEGER NOT NULL,
      text TEXT NOT NULL,
      tokens INTEGER NOT NULL,
      vector BLOB NOT NULL
    );
    CREATE INDEX vector_chunks_by_file ON vector_chunks (store_id, file_id, chunk_index);
    CREATE TABLE vector_files (
      store_id TEXT NOT NULL,
      file_id TEXT NOT NULL,
      filename TEXT NOT NULL,
      attributes TEXT,
      PRIMARY KEY (store_id, file_id)
    );
    CREATE TABLE vector_index_meta (
      store_id TEXT PRIMARY KEY,
      embedder_id TEXT NOT NULL,
      dimensions INTEGER NOT NULL,
      generation INTEGER NOT NULL DEFAULT 0,
      chunk_count INTEGER NOT NULL DEFAULT 0
    );
    CREATE VIRTUAL TABLE vector_fts USING fts5(
      text, content = 'vector_chunks', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE vector_fts_vocab USING fts5vocab(vector_fts, 'row');
    CREATE TRIGGER vector_chunks_insert AFTER INSERT ON vector_chunks BEGIN
      INSERT INTO vector_fts (rowid, text) VALUES (new.id, new.text);
    END;
    CREATE TRIGGER vector_chunks_delete AFTER DELETE ON vector_chunks BEGIN
      INSERT INTO vector_fts (vector_fts, rowid, text) VALUES ('delete', old.id, old.text);
    END;
    CREATE TRIGGER vector_chunks_update AFTER UPDATE OF text ON vector_chunks BEGIN
      INSERT INTO vector_fts (vector_fts, rowid, text) VALUES ('delete', old.id, old.text);
      INSERT INTO vector_fts (rowid, text) VALUES (new.id, new.text);
    END;`,
    // 2: the keyword index becomes contentless (deletes by rowid) and keeps each chunk's store id in
    // its own small table (contentless_unindexed, SQLite >= 3.48), so narrowing to the searched stores
    // never reads the wide vector_chunks rows.
    `DROP TRIGGER vector_chunks_insert;
    DROP TRIGGER vector_chunks_delete;
    DROP TRIGGER vector_chunks_update;
    DROP TABLE vector_fts_vocab;
    DROP TABLE vector_fts;
    CREATE VIRTUAL TABLE vector_fts USING fts5(
      text, store_id UNINDEXED, content = '', contentless_delete = 1, contentless_unindexed = 1,
      tokenize = 'unicode61 remove_diacritics 2'
    );
    CREATE VIRTUAL TABLE vector_fts_vocab USING fts5vocab(vector_fts, 'row');
    CREATE TRIGGER vector_chunks_insert AFTER INSERT ON vector_chunks BEGIN
      INSERT INTO vector_fts (rowid, text, store_id) VALUES (new.id, new.text, new.store_id);
    END;
    CREATE TRIGGER vector_chunks_delete AFTER DELETE ON vector_chunks BEGIN
      DELETE FROM vector_fts WHERE rowid = old.id;
    END;
    CREATE TRIGGER vector_chunks_update AFTER UPDATE OF text, store_id ON vector_chunks BEGIN
      DELETE FROM vector_fts WHERE rowid = old.id;
      INSERT INTO vector_fts (rowid, text, store_id) VALUES (new.id, new.text, new.store_id);
    END;
    INSERT INTO vector_fts (rowid, text, store_id) SELECT id, text, store_id FROM vector_chunks;`,
  ],
};
