/**
 * The IVF index's file: one binary file, little-endian, written to a temporary name then renamed (a reader
 * never sees half a file). Layout: the magic `FIVF`, u32 version, u32 dimensions, u32 lists, f64 vectors;
 * the centroids (`lists x dimensions` f32); then per list a u32 count, its labels (f64) and its vectors;
 * the magic `FEND`. Version 2 (written) holds the vectors as the index's 8-bit rows, byte for byte
 * (`count x rowBytes`: padded int8 values, f32 scale, zeros), so loading copies them into the index's
 * memory block by block. Version 1 (read, from before the 8-bit rows) holds `count x dimensions` f32,
 * normalised; they are made 8-bit rows as they are read.
 */
import { closeSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { FathomError } from '../../errors';
import type { IvfIndex } from './ivf-index';

const MAGIC = 0x46564946; // 'FIVF'
const END = 0x444e4546; // 'FEND'
const VERSION = 2;
const FLOAT_ROWS = 1;
const HEADER_BYTES = 24;

/** What a file's header declares, for the caller to build the index it is read into. */
export interface IvfFileHeader {
  dimensions: number;
  centroids: Float32Array;
}

/** Writes `index` to `path` (a temporary file renamed over it). */
export function writeIvfFile(index: IvfIndex, path: string): void {
  const temporary = `${path}.tmp-${process.pid}-${threadId}`;
  const fd = openSync(temporary, 'w');
  try {
    const { dimensions, rowBytes } = index;
    const header = Buffer.alloc(HEADER_BYTES);
    header.writeUInt32LE(MAGIC, 0);
    header.writeUInt32LE(VERSION, 4);
    header.writeUInt32LE(dimensions, 8);
    header.writeUInt32LE(index.lists, 12);
    header.writeDoubleLE(index.count, 16);
    writeSync(fd, header);
    writeSync(fd, bytesOf(index.centroids()));
    const count = Buffer.alloc(4);
    index.listsForSave().forEach((list, listIndex) => {
      count.writeUInt32LE(list.count, 0);
      writeSync(fd, count);
      writeSync(fd, bytesOf(list.labels.subarray(0, list.count)));
      for (let first = 0; first < list.count; first += index.blockRows) {
        const rows = Math.min(index.blockRows, list.count - first);
        writeSync(fd, index.bytesAt(index.rowOf(listIndex, first), rows * rowBytes));
      }
    });
    count.writeUInt32LE(END, 0);
    writeSync(fd, count);
    closeSync(fd);
    renameSync(temporary, path);
  } catch (error) {
    try {
      closeSync(fd);
    } catch {}
    try {
      unlinkSync(temporary);
    } catch {}
    throw error;
  }
}

/** Reads the file at `path` into the index `create` builds from its header. Throws `ivf_file_invalid` when it is not whole. */
export function readIvfFile(path: string, create: (header: IvfFileHeader) => IvfIndex): IvfIndex {
  const fd = openSync(path, 'r');
  let position = 0;
  const read = (target: Uint8Array) => {
    let done = 0;
    while (done < target.length) {
      const got = readSync(fd, target, done, target.length - done, position);
      if (got === 0) throw invalid(path, 'it ends early');
      done += got;
      position += got;
    }
  };
  try {
    const header = Buffer.alloc(HEADER_BYTES);
    read(header);
    if (header.readUInt32LE(0) !== MAGIC) throw invalid(path, 'it is not an IVF index file');
    const version = header.readUInt32LE(4);
    if (version !== VERSION && version !== FLOAT_ROWS) throw invalid(path, `its version ${version} is not ${FLOAT_ROWS} or ${VERSION}`);
    const dimensions = header.readUInt32LE(8);
    const lists = header.readUInt32LE(12);
    const total = header.readDoubleLE(16);
    const centroids = new Float32Array(lists * dimensions);
    read(bytesOf(centroids));
    const index = create({ dimensions, centroids });
    if (Number.isSafeInteger(total) && total >= 0 && total <= 2 ** 31) index.reserveLabels(total);
    const count = Buffer.alloc(4);
    // A list's vectors in one read into a reused buffer, then copied to its blocks: a read per block (64 rows)
    // made ~8,000 system calls for a 780 MB shard, ~0.4 s more than ~600 larger ones on the VM measured.
    const rowBytes = version === VERSION ? index.rowBytes : dimensions * 4;
    let scratch = new Uint8Array(0);
    for (let list = 0; list < lists; list++) {
      read(count);
      const labels = new Float64Array(count.readUInt32LE(0));
      read(bytesOf(labels));
      if (scratch.length < labels.length * rowBytes) scratch = new Uint8Array(labels.length * rowBytes);
      read(scratch.subarray(0, labels.length * rowBytes));
      if (version === VERSION)
        index.appendStored(list, labels, (at, first, rows) =>
          index.bytesAt(at, rows * rowBytes).set(scratch.subarray(first * rowBytes, (first + rows) * rowBytes)),
        );
      else {
        const floats = new Float32Array(scratch.buffer, 0, labels.length * dimensions);
        index.appendStored(list, labels, (at, first, rows) => {
          for (let r = 0; r < rows; r++) index.storeRow(floats, (first + r) * dimensions, at + r * index.rowBytes);
        });
      }
    }
    read(count);
    if (count.readUInt32LE(0) !== END || index.count !== total) throw invalid(path, 'its lists do not add up to its header');
    index.olderFile = version !== VERSION;
    return index;
  } finally {
    closeSync(fd);
  }
}

function bytesOf(array: Float32Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function invalid(path: string, why: string): FathomError {
  return new FathomError(`The vector index file ${path} cannot be read: ${why}.`, { code: 'ivf_file_invalid', status: 500 });
}
