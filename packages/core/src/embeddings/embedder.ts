/**
 * The embedder contract. Every implementation (transformers, openai-compatible, hash) satisfies it,
 * and they share one conformance suite.
 */
export interface Embedder {
  /** Stable identity stored with each vector store, e.g. `hash:v1:384` or `transformers:Xenova/all-MiniLM-L6-v2`. */
  readonly id: string;
  /** Vector length. */
  readonly dimensions: number;
  /** Input window in tokens; `auto` chunking fits under it. */
  readonly maxInputTokens: number;
  /** Embeds a batch; vectors are L2-normalised. */
  embed(options: { values: string[]; signal?: AbortSignal }): Promise<{ embeddings: Float32Array[] }>;
  /** Counts tokens with this embedder's own tokenizer (chunk sizes are measured with it). */
  countTokens(text: string): number;
  /** Splits text into token-aligned pieces; used by the chunker. Returns character offsets of each token. */
  tokenize(text: string): Array<{ start: number; end: number }>;
  close?(): Promise<void>;
}
