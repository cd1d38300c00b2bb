/**
 * The IVF index's file: one binary file, little-endian, written to a temporary name then renamed (a reader
 * never sees half a file). Layout: the magic `FIVF`, u32 version, u32 dimensions, u32 lists, f64 vectors;
 * the centroids (`lists x dimensions` f32); then per list a u32 count, its labels (f64) and its vectors;
 * the magic `FEND`. Version 2 (written) holds the vectors as the index's 8-bit rows, byte for byte
 * (`count x rowBytes`: padded int8 values, f32 scale, zeros), so loading copies them into the index's
 * memory block by block. Version 1 (read, from before the 8-bit rows) holds `count x dimensions` f32,
 * normalised; they are made 8-bit rows as they are read. A reader reads the lists one at a time, in any order
 * (`IvfFileReader`).
 */
import { closeSync, openSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { threadId } from 'node:worker_threads';
import { FathomError } from '../../errors';
import { paddedDimensions, rowBytes } from './dots-kernel';
import type { IvfIndex } from './ivf-index';

const MAGIC = 0x46564946; // 'FIVF'
const END = 0x444e4546; // 'FEND'
const VERSION = 2;
const FLOAT_ROWS = 1;
const HEADER_BYTES = 24;

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

/**
 * An IVF file open for reading. Opening reads the header and the centroids and walks the lists' counts to the
 * end marker (the file is checked whole, ~600 small reads a shard); the lists themselves are read one at a time
 * (`readList`), so an index can answer searches from the lists they probe before the rest is read.
 */
export class IvfFileReader {
  readonly dimensions: number;
  readonly centroids: Float32Array;
  /** Vectors in the file, as its header says (the lists' counts add up to it). */
  readonly total: number;
  /** True for a version-1 file (float rows): its rows are made 8-bit as they are read. */
  readonly floatRows: boolean;
  readonly #path: string;
  readonly #rowBytes: number;
  /** Per list: where its labels start, and how many it holds. */
  readonly #offsets: Float64Array;
  readonly #counts: Uint32Array;
  /** Per list: 1 until it is read. */
  readonly #unread: Uint8Array;
  /** The first list that may be unread. */
  #next = 0;
  #fd: number | undefined;
  #scratch = new Uint8Array(0);

  /** Opens and checks the file at `path`. Throws `ivf_file_invalid` when it is not whole. */
  static open(path: string): IvfFileReader {
    const fd = openSync(path, 'r');
    try {
      return new IvfFileReader(path, fd);
    } catch (error) {
      closeSync(fd);
      throw error;
    }
  }

  private constructor(path: string, fd: number) {
    this.#path = path;
    this.#fd = fd;
    const header = Buffer.alloc(HEADER_BYTES);
    this.#read(header, 0);
    if (header.readUInt32LE(0) !== MAGIC) throw invalid(path, 'it is not an IVF index file');
    const version = header.readUInt32LE(4);
    if (version !== VERSION && version !== FLOAT_ROWS) throw invalid(path, `its version ${version} is not ${FLOAT_ROWS} or ${VERSION}`);
    this.dimensions = header.readUInt32LE(8);
    const lists = header.readUInt32LE(12);
    this.total = header.readDoubleLE(16);
    this.floatRows = version === FLOAT_ROWS;
    this.#rowBytes = this.floatRows ? this.dimensions * 4 : rowBytes(paddedDimensions(this.dimensions));
    this.centroids = new Float32Array(lists * this.dimensions);
    this.#read(bytesOf(this.centroids), HEADER_BYTES);
    this.#offsets = new Float64Array(lists);
    this.#counts = new Uint32Array(lists);
    this.#unread = new Uint8Array(lists).fill(1);
    const count = Buffer.alloc(4);
    let position = HEADER_BYTES + this.centroids.byteLength;
    let sum = 0;
    for (let list = 0; list < lists; list++) {
      this.#read(count, position);
      this.#counts[list] = count.readUInt32LE(0);
      this.#offsets[list] = position + 4;
      position += 4 + this.#counts[list]! * (8 + this.#rowBytes);
      sum += this.#counts[list]!;
    }
    this.#read(count, position);
    if (count.readUInt32LE(0) !== END || sum !== this.total) throw invalid(path, 'its lists do not add up to its header');
    this.unreadRows = sum;
  }

  /** Vectors in the lists not read yet. */
  unreadRows: number;

  /** True once every list was read (the file is then closed). */
  get done(): boolean {
    return this.#next === this.lists;
  }

  get lists(): number {
    return this.#counts.length;
  }

  /** Vectors of `list`. */
  count(list: number): number {
    return this.#counts[list]!;
  }

  /** Reads unread lists into `index` in file order for about `milliseconds`; answers `done`. */
  readMore(index: IvfIndex, milliseconds: number): boolean {
    const until = performance.now() + milliseconds;
    while (this.#next < this.lists && performance.now() < until) this.readList(this.#next++, index);
    while (this.#next < this.lists && !this.#unread[this.#next]) this.#next++;
    if (this.done) this.close();
    return this.done;
  }

  /** Reads `list` (its labels, then its rows in one read) into `index`, unless it was read already. */
  readList(list: number, index: IvfIndex): void {
    if (!this.#unread[list]) return;
    this.#unread[list] = 0;
    const count = this.#counts[list]!;
    this.unreadRows -= count;
    if (count === 0) return;
    const rows = count * this.#rowBytes;
    if (this.#scratch.length < count * 8 + rows) this.#scratch = new Uint8Array(count * 8 + rows);
    this.#read(this.#scratch.subarray(0, count * 8 + rows), this.#offsets[list]!);
    const labels = new Float64Array(this.#scratch.buffer, 0, count);
    const rowBytes = this.#rowBytes;
    if (!this.floatRows)
      index.appendStored(list, labels, (at, first, n) =>
        index.bytesAt(at, n * rowBytes).set(this.#scratch.subarray(count * 8 + first * rowBytes, count * 8 + (first + n) * rowBytes)),
      );
    else {
      const floats = new Float32Array(this.#scratch.buffer, count * 8, count * this.dimensions);
      index.appendStored(list, labels, (at, first, n) => {
        for (let r = 0; r < n; r++) index.storeRow(floats, (first + r) * this.dimensions, at + r * index.rowBytes);
      });
    }
  }

  /** Closes the file (idempotent); `readList` cannot be called after. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
    this.#scratch = new Uint8Array(0);
  }

  #read(target: Uint8Array, position: number): void {
    if (this.#fd === undefined) throw new Error(`The IVF file ${this.#path} is closed.`);
    let done = 0;
    while (done < target.length) {
      const got = readSync(this.#fd, target, done, target.length - done, position + done);
      if (got === 0) throw invalid(this.#path, 'it ends early');
      done += got;
    }
  }
}

function bytesOf(array: Float32Array | Float64Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function invalid(path: string, why: string): FathomError {
  return new FathomError(`The vector index file ${path} cannot be read: ${why}.`, { code: 'ivf_file_invalid', status: 500 });
}
