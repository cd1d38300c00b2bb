/**
 * Builds (once) and reuses a search store of the bench corpus under PROFILE_DIR, then runs the
 * benchmark queries in one mode so the path can be profiled (node --cpu-prof) or counted (perf stat).
 * Not part of `npm run bench:peers`; a tool for before/after comparisons of one path.
 *
 * Run: PROFILE_DIR=/tmp/store MODE=keyword node --conditions=fathom-source --import tsx bench/peers/profile-search.ts
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { silentLogger } from '../../packages/core/src/internal/logger';
import { SqliteDatabase } from '../../packages/core/src/storage';
import { VectorIndex, vectorSchema } from '../../packages/core/src/vector';
import { chunkText, queryText, rand, TopicAverageEmbedder, TOPICS } from '../search-corpus';
import { percentile } from './stats';

const TOTAL = Number(process.env.CHUNKS ?? 100_000);
const PER_FILE = 100;
const dir = process.env.PROFILE_DIR ?? '/tmp/fathom-profile-store';
const mode = (process.env.MODE ?? 'keyword') as 'keyword' | 'vector' | 'hybrid';
const rounds = Number(process.env.ROUNDS ?? 5);
const embedder = new TopicAverageEmbedder();
const fresh = !existsSync(join(dir, 'fathom.db'));
const db = new SqliteDatabase({ location: join(dir, 'fathom.db'), schemas: [vectorSchema] });
const index = new VectorIndex({ db, embedder, dataDir: dir, log: silentLogger });
const storeId = 'vs_bench';
for (let file = 0; file < TOTAL / PER_FILE; file++) {
  const topic = file % TOPICS;
  const texts = Array.from({ length: PER_FILE }, () => chunkText(rand() < 0.8 ? topic : Math.floor(rand() * TOPICS)));
  if (!fresh) continue;
  const { embeddings } = await embedder.embed({ values: texts });
  await index.addFileChunks({
    storeId,
    fileId: `file-${file}`,
    filename: `doc-${file}.txt`,
    attributes: { topic, part: file % 7 },
    chunks: texts.map((text, i) => ({ index: i, text, tokens: embedder.countTokens(text), vector: embeddings[i]! })),
  });
}
if (fresh) await index.flush();
const queries = Array.from({ length: 200 }, (_, i) => queryText((i * 7) % TOPICS));
for (const query of queries.slice(0, 20)) await index.search([storeId], { query, mode });
const times: number[] = [];
const cpuBefore = process.cpuUsage();
const started = performance.now();
for (let round = 0; round < rounds; round++) {
  for (const query of queries) {
    const t0 = performance.now();
    await index.search([storeId], { query, mode, maxNumResults: 8 });
    times.push(performance.now() - t0);
  }
}
const cpu = process.cpuUsage(cpuBefore);
console.log(
  `${mode}: ${times.length} searches in ${(performance.now() - started).toFixed(0)} ms, p50 ${percentile(times, 50).toFixed(3)} ms, p99 ${percentile(times, 99).toFixed(3)} ms, ` +
    `CPU ${((cpu.user + cpu.system) / 1000 / times.length).toFixed(3)} ms per search (all threads)`,
);
await index.close();
db.close();
