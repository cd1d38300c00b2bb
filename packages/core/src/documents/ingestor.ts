import { HashEmbedder, type Embedder } from '../embeddings';
import type { IndexedChunk, VectorIndexContract, WriteFence } from '../vector';
import { chunkText, type StaticChunking, type TextChunk } from './chunking';
import { ExtractionError } from './extract/extraction-error';
import { type ExtractOptions, ExtractPool, type ExtractPoolOptions } from './extract/extract-pool';

export interface IngestorOptions {
  embedder: Embedder;
  vectorIndex: VectorIndexContract;
  /** Texts per `embedder.embed` call; default 64. */
  batchSize?: number;
  /** Tokens per `embedder.embed` call at most; default 8192 (keeps each call of an in-process embedder short). */
  batchTokens?: number;
  /** Run chunking and embedding in the extraction workers when the embedder allows it (hash); default true. */
  embedInWorker?: boolean;
  /** Worker-pool settings of text extraction (threads, memory cap, deadline). */
  extract?: ExtractPoolOptions;
}

export interface IngestInput {
  /** The account of the store: extraction threads are shared fairly between accounts. */
  accountId?: string;
  storeId: string;
  fileId: string;
  filename: string;
  /** Where the file's bytes are. */
  path: string;
  /** The file's size in bytes, when known. */
  bytes?: number;
  attributes: Record<string, string | number | boolean> | null;
  chunking: StaticChunking;
  signal?: AbortSignal;
  /** Publish the chunks only while this holds (the run still owns its queue entry); see `WriteFence`. */
  fence?: WriteFence;
}

export interface IngestResult {
  chunks: number;
  tokens: number;
  /** Bytes the file occupies in the store: chunk text (UTF-8) plus float32 vectors. */
  usageBytes: number;
}

/**
 * The ingestion pipeline for one file: extract text (worker threads), chunk it by the embedder's tokens,
 * embed in batches, hand the chunks to the index. Bad documents throw `ExtractionError`
 * (`unsupported_file` | `invalid_file` | `server_error`) with a message saying what was wrong.
 */
export class Ingestor {
  readonly embedder: Embedder;
  private readonly index: VectorIndexContract;
  private readonly pool: ExtractPool;
  private readonly batchSize: number;
  private readonly batchTokens: number;
  /** True when extract+chunk+embed all run in the worker (embedders that can be rebuilt there). */
  readonly embedsInWorker: boolean;

  constructor(options: IngestorOptions) {
    this.embedder = options.embedder;
    this.index = options.vectorIndex;
    this.batchSize = options.batchSize ?? 64;
    this.batchTokens = options.batchTokens ?? 8192;
    this.pool = new ExtractPool(options.extract);
    // The model-free hash embedder is rebuilt from its id inside the extraction workers.
    const twin = this.embedder instanceof HashEmbedder ? HashEmbedder.fromId(this.embedder.id) : null;
    this.embedsInWorker = options.embedInWorker !== false && !!twin && twin.maxInputTokens === this.embedder.maxInputTokens;
  }

  async ingest(input: IngestInput): Promise<IngestResult> {
    let indexed: IndexedChunk[];
    if (this.embedsInWorker) {
      // The whole CPU part (extract, chunk, embed) runs in a worker thread; this thread only indexes.
      const { chunks, vectors } = await this.pool.prepare(
        {
          path: input.path,
          filename: input.filename,
          size: input.bytes,
          prepare: { embedderId: this.embedder.id, chunking: input.chunking, batchSize: this.batchSize },
        },
        { signal: input.signal, account: input.accountId },
      );
      indexed = chunks.map((chunk, i) => ({ index: chunk.index, text: chunk.text, tokens: chunk.tokens, vector: vectors[i]! }));
    } else {
      const text = await this.pool.extract(
        { path: input.path, filename: input.filename, size: input.bytes },
        { signal: input.signal, account: input.accountId },
      );
      const chunks: TextChunk[] = [];
      for await (const chunk of chunkText(text, this.embedder, input.chunking)) chunks.push(chunk);
      indexed = await this.embedChunks(chunks, input.signal);
    }
    if (indexed.length === 0) throw new ExtractionError('invalid_file', 'file contains no text');
    // One index write at a time, each starting from a fresh turn of the event loop: the index's SQLite
    // transaction is synchronous, and requests must get their turn between two files.
    const release = await this.indexTurn();
    try {
      input.signal?.throwIfAborted();
      await this.index.addFileChunks({
        storeId: input.storeId,
        fileId: input.fileId,
        filename: input.filename,
        attributes: input.attributes,
        chunks: indexed,
        fence: input.fence,
      });
    } finally {
      release();
    }
    let usageBytes = 0;
    let tokens = 0;
    for (const chunk of indexed) {
      usageBytes += Buffer.byteLength(chunk.text) + chunk.vector.byteLength;
      tokens += chunk.tokens;
    }
    return { chunks: indexed.length, tokens, usageBytes };
  }

  private indexQueue: Promise<void> = Promise.resolve();

  /** Waits for the previous index write to end, then for the next turn of the event loop. */
  private async indexTurn(): Promise<() => void> {
    let release!: () => void;
    const previous = this.indexQueue;
    this.indexQueue = new Promise<void>((resolve) => (release = resolve));
    await previous;
    await yieldToEventLoop();
    return release;
  }

  /**
   * Text of a stored file, extracted in a worker thread under a memory cap and a deadline, on the
   * account's fair share of the threads (`options.account`, `options.interactive`).
   */
  extract(path: string, filename: string, options: ExtractOptions = {}): Promise<string> {
    return this.pool.extract({ path, filename }, options);
  }

  /**
   * Embeds chunks in batches of at most `batchSize` texts and `batchTokens` tokens, yielding to the event
   * loop between batches: an in-process embedder (hash) is synchronous CPU, and without the yield one
   * file's batches would run as one long chain of microtasks and stall every request meanwhile.
   */
  async embedChunks(chunks: TextChunk[], signal?: AbortSignal): Promise<IndexedChunk[]> {
    const out: IndexedChunk[] = [];
    for (let i = 0; i < chunks.length; ) {
      signal?.throwIfAborted();
      let end = i + 1;
      let tokens = chunks[i]!.tokens;
      while (end < chunks.length && end - i < this.batchSize && tokens + chunks[end]!.tokens <= this.batchTokens)
        tokens += chunks[end++]!.tokens;
      const batch = chunks.slice(i, end);
      i = end;
      await yieldToEventLoop();
      let embeddings: Float32Array[];
      try {
        ({ embeddings } = await this.embedder.embed({ values: batch.map((chunk) => chunk.text), signal }));
      } catch (error) {
        if (signal?.aborted) throw error;
        throw new ExtractionError('server_error', `embedding failed: ${(error as Error).message}`);
      }
      batch.forEach((chunk, j) => out.push({ index: chunk.index, text: chunk.text, tokens: chunk.tokens, vector: embeddings[j]! }));
    }
    await yieldToEventLoop();
    return out;
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
