/** A store's row of `vector_index_meta`: the embedder that built it, its generation and size. */
export interface MetaRow {
  store_id: string;
  embedder_id: string;
  dimensions: number;
  generation: number;
  chunk_count: number;
}

/** A chunk found by either side of a search, read once for scoring and the answer. */
export interface CandidateRow {
  id: number;
  store_id: string;
  file_id: string;
  text: string;
  /** Absent when only the keyword side scores. */
  vector?: Buffer;
}
