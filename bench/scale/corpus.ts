/**
 * The scale benchmark's corpus: the search benchmark's topical text and 384-d clustered vectors
 * (`search-corpus.ts`), generated file by file from the file's own seed, so the node under test and the
 * bench's exact reference produce the same chunks without sharing them, in any order.
 */
import { chunkText, queryText, random, TopicAverageEmbedder, TOPICS } from '../search-corpus';

export { TopicAverageEmbedder };

/** The texts of file `file`: `chunks` chunks, 80% about the file's topic (file % 300). */
export function fileTexts(file: number, chunks: number): string[] {
  const next = random(0x9e3779b1 ^ Math.imul(file + 1, 0x85ebca6b));
  const topic = file % TOPICS;
  return Array.from({ length: chunks }, () => chunkText(next() < 0.8 ? topic : Math.floor(next() * TOPICS), next));
}

/** A file's attributes: `part` splits the files into 7 groups (a filter on one keeps 1/7 of them). */
export const fileAttributes = (file: number) => ({ topic: file % TOPICS, part: file % 7 });

/** `count` natural-language queries of 8 words over the topics. */
export function benchQueries(count: number): string[] {
  const next = random(20_261_125);
  return Array.from({ length: count }, (_, i) => queryText((i * 7) % TOPICS, next));
}

/** How a scenario lays its chunks out: stores of files of chunks. */
export interface Layout {
  stores: number;
  filesPerStore: number;
  chunksPerFile: number;
}

export const totalChunks = (layout: Layout) => layout.stores * layout.filesPerStore * layout.chunksPerFile;
/** Global file number of a store's `index`-th file. */
export const fileNumber = (layout: Layout, store: number, index: number) => store * layout.filesPerStore + index;

/**
 * Exact top-k by cosine of each query over the files of one store, streamed file by file (vectors are
 * normalised): the reference for recall. Answers per query the (file, chunk) pairs, best first.
 */
export function exactTopK(
  embedder: TopicAverageEmbedder,
  queries: Float32Array[],
  files: number[],
  chunksPerFile: number,
  k: number,
  onFile?: (done: number) => void,
): Array<Array<{ file: number; chunk: number }>> {
  const dims = embedder.dimensions;
  const best = queries.map(() => [] as Array<{ file: number; chunk: number; score: number }>);
  files.forEach((file, done) => {
    const texts = fileTexts(file, chunksPerFile);
    texts.forEach((text, chunk) => {
      const vector = embedder.embedOne(text);
      queries.forEach((query, q) => {
        let score = 0;
        for (let d = 0; d < dims; d++) score += query[d]! * vector[d]!;
        const list = best[q]!;
        if (list.length < k || score > list[list.length - 1]!.score) {
          list.push({ file, chunk, score });
          list.sort((a, b) => b.score - a.score);
          if (list.length > k) list.pop();
        }
      });
    });
    onFile?.(done + 1);
  });
  return best.map((list) => list.map(({ file, chunk }) => ({ file, chunk })));
}
