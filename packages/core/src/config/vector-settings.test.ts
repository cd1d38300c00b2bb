import { describe, expect, it } from 'vitest';
import { loadConfig } from './config';

const base = { FATHOM_DATA_DIR: '/tmp/fathom-config-test' };

describe('vector index settings', () => {
  it("default to a 2 GiB graph budget, a beam that follows the store and each backend's own exact-scan size", () => {
    expect(loadConfig(base).vector).toEqual({
      hnswMemoryMb: 2048,
      hnswEfSearch: undefined,
      exactSearchChunks: undefined,
      ivfAboveChunks: 50_000,
    });
  });

  it('read FATHOM_HNSW_MEMORY_MB, FATHOM_HNSW_EF_SEARCH, FATHOM_EXACT_SEARCH_CHUNKS and FATHOM_IVF_ABOVE_CHUNKS', () => {
    const config = loadConfig({
      ...base,
      FATHOM_HNSW_MEMORY_MB: '512',
      FATHOM_HNSW_EF_SEARCH: '1200',
      FATHOM_EXACT_SEARCH_CHUNKS: '100',
      FATHOM_IVF_ABOVE_CHUNKS: '120000',
    });
    expect(config.vector).toEqual({ hnswMemoryMb: 512, hnswEfSearch: 1200, exactSearchChunks: 100, ivfAboveChunks: 120_000 });
  });

  it.each([
    ['FATHOM_HNSW_MEMORY_MB', 'lots'],
    ['FATHOM_HNSW_EF_SEARCH', '0'],
    ['FATHOM_EXACT_SEARCH_CHUNKS', '-5'],
    ['FATHOM_IVF_ABOVE_CHUNKS', 'many'],
  ])('stop the start on a bad %s, naming it', (name, value) => {
    expect(() => loadConfig({ ...base, [name]: value })).toThrow(
      new RegExp(`^${name} must be a (positive integer|number), got '${value}'\\.$`),
    );
  });
});
