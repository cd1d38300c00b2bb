/**
 * IVF files as version 1 wrote them (float rows, before the 8-bit rows of 2026-11-27), for the tests of
 * reading them: the header, the centroids, per list a u32 count, f64 labels and normalised f32 vectors, FEND.
 */
import { writeFileSync } from 'node:fs';
import type { IvfIndex } from '../ivf';

export interface Version1List {
  labels: Float64Array;
  /** `labels.length x dimensions` floats, normalised. */
  vectors: Float32Array;
}

export function writeVersion1File(path: string, dimensions: number, centroids: Float32Array, lists: Version1List[]): void {
  const header = Buffer.alloc(24);
  header.writeUInt32LE(0x46564946, 0); // FIVF
  header.writeUInt32LE(1, 4);
  header.writeUInt32LE(dimensions, 8);
  header.writeUInt32LE(lists.length, 12);
  header.writeDoubleLE(
    lists.reduce((sum, list) => sum + list.labels.length, 0),
    16,
  );
  const parts: Buffer[] = [header, Buffer.from(centroids.buffer, centroids.byteOffset, centroids.byteLength)];
  for (const { labels, vectors } of lists) {
    const count = Buffer.alloc(4);
    count.writeUInt32LE(labels.length, 0);
    parts.push(count, Buffer.from(labels.buffer, labels.byteOffset, labels.byteLength));
    parts.push(Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  }
  const end = Buffer.alloc(4);
  end.writeUInt32LE(0x444e4546, 0); // FEND
  parts.push(end);
  writeFileSync(path, Buffer.concat(parts));
}

/** An index's lists with its 8-bit rows decoded to floats and normalised: what a version-1 file of it held, to ~0.4%. */
export function decodedLists(index: IvfIndex): Version1List[] {
  const { dimensions } = index;
  return index.listsForSave().map((list, at) => {
    const vectors = new Float32Array(list.count * dimensions);
    for (let slot = 0; slot < list.count; slot++) {
      const row = index.bytesAt(index.rowOf(at, slot), index.rowBytes);
      const values = new Int8Array(row.buffer, row.byteOffset, dimensions);
      const norm = Math.hypot(...values) || 1;
      for (let d = 0; d < dimensions; d++) vectors[slot * dimensions + d] = values[d]! / norm;
    }
    return { labels: list.labels.slice(0, list.count), vectors };
  });
}
