/**
 * Piscina task: reads one stored file and extracts its text, off the main thread, under the pool's
 * memory cap. With `prepare`, it also chunks and embeds the text here (for embedders that can be rebuilt
 * from their id in a worker, i.e. the model-free `hash` embedder, which would otherwise spend the main
 * thread's CPU).
 */
import { readFile } from 'node:fs/promises';
import { HashEmbedder } from '../../embeddings/hash-embedder';
import { chunkText, type StaticChunking, type TextChunk } from '../chunking';
import { ExtractionError } from './extraction-error';
import { extractText } from './extract-text';
import { MemoryGuard } from './memory-guard';

/** The ArrayBuffer cap of this worker thread, armed for each parse with the pool's `memoryMb`. */
const guard = new MemoryGuard().install();

export interface ExtractTask {
  path: string;
  filename: string;
  /** Size in bytes when the caller knows it (saves a stat). */
  size?: number;
  /** Cap of the parse's ArrayBuffers (decompressed data), MB; set by the pool. */
  memoryMb?: number;
  prepare?: { embedderId: string; chunking: StaticChunking; batchSize: number };
}

export type ExtractResult =
  | { ok: true; text: string; spans?: Int32Array; vectors?: Float32Array; dimensions?: number }
  | { ok: false; code: string; message: string };

export default async function extract(task: ExtractTask): Promise<ExtractResult> {
  if (task.memoryMb) guard.arm(task.memoryMb);
  try {
    const bytes = await readFile(task.path);
    let text: string;
    try {
      text = await extractText(task.filename, bytes);
    } finally {
      guard.check();
    }
    if (!task.prepare) return { ok: true, text };
    const embedder = HashEmbedder.fromId(task.prepare.embedderId);
    if (!embedder) throw new Error(`embedder ${task.prepare.embedderId} cannot run in a worker`);
    const chunks: TextChunk[] = [];
    for await (const chunk of chunkText(text, embedder, task.prepare.chunking, async () => {})) chunks.push(chunk);
    // One flat array: cloning it back is one copy, not one object per chunk.
    const vectors = new Float32Array(chunks.length * embedder.dimensions);
    for (let i = 0; i < chunks.length; i += task.prepare.batchSize) {
      const { embeddings } = await embedder.embed({ values: chunks.slice(i, i + task.prepare.batchSize).map((chunk) => chunk.text) });
      embeddings.forEach((vector, j) => vectors.set(vector, (i + j) * embedder.dimensions));
    }
    // Chunks travel as offsets into the text (cloned once) rather than as thousands of strings.
    const spans = new Int32Array(chunks.length * 3);
    chunks.forEach((chunk, i) => spans.set([chunk.start, chunk.end, chunk.tokens], i * 3));
    return { ok: true, text, spans, vectors, dimensions: embedder.dimensions };
  } catch (error) {
    if (error instanceof ExtractionError) return { ok: false, code: error.code, message: error.message };
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, code: 'invalid_file', message: 'file was deleted' };
    return { ok: false, code: 'server_error', message: `text extraction failed: ${(error as Error).message}` };
  } finally {
    guard.disarm();
  }
}
