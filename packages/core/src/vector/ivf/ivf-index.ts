/**
 * An inverted-file vector index (IVF) for cosine similarity: vectors grouped in lists under unit centroids
 * (trained by `trainCentroids`), each list a run of fixed-size blocks in one WebAssembly memory; a search
 * scores the centroids, then every vector of the `nprobe` nearest lists with the SIMD kernel. The lists hold
 * 8-bit rows (`quantize.ts`): a quarter of the memory, of the file and of the bytes a search reads, for
 * scores ~0.002 off at 384-d; the caller scores the candidates it keeps again from their exact vectors.
 * Labels are chunk ids (integers below 2^53); a label -> (list, slot) map serves deletions and filters.
 */
import { InvalidRequestError } from '../../errors';
import { inRanges } from '../id-ranges';
import { type DotsKernel, instantiateDots, paddedDimensions, rowBytes } from './dots-kernel';
import { IvfFileReader, writeIvfFile } from './ivf-file';
import { type IvfList, IvfLists, listOf, slotOf } from './ivf-lists';
import { defaultProbes } from './ivf-parameters';
import { writeQuery16, writeRow8 } from './quantize';
import { TopHits } from './top-hits';
import { VectorArena } from './vector-arena';

export interface IvfIndexOptions {
  dimensions: number;
  /** `lists x dimensions` floats, one centroid per list (normalised here). */
  centroids: Float32Array;
  /** Vectors per block of the arena; default 64. */
  blockRows?: number;
  /** The most bytes the index's memory may reach; default (and ceiling) 4 GiB. */
  maximumBytes?: number;
  /** Lists a search scans when it does not say; default `defaultProbes(lists)`. */
  nprobe?: number;
}

export interface IvfSearchOptions {
  /** Lists to scan; default the index's `nprobe`. */
  nprobe?: number;
  /** Only these labels may be answered: sorted, disjoint `[first, last]` pairs, flattened (`id-ranges.ts`). */
  allowed?: Float64Array;
  /** With `allowed`: the most allowed labels scored exactly; default `exactFilterLimit(nprobe)`. */
  exactLimit?: number;
}

export interface IvfHit {
  label: number;
  /** Cosine distance, `1 - similarity`. */
  distance: number;
}

/**
 * A filter allowing at most this many labels (or half the vectors a search scans, when that is more) is
 * answered exactly: each allowed label the index holds is scored through the label map. Above it, the
 * probed lists are scanned and disallowed labels skipped. At 1M 384-d vectors a label scored through the
 * map costs ~0.55 µs (a map lookup and a random row), a scanned vector ~0.17 µs (float rows, 2026-11-26): 4,000 labels took 2.1 ms
 * exactly against 3.4 ms by the lists, 8,000 took 4.9 against 3.3 (bench/scale/ivf-module.ts), so the bound
 * at 12 lists of 1,000 (6,000) sits at the crossing. Below the floor the exact plan always wins: a selective
 * filter makes the lists plan probe list after list to find k allowed labels.
 */
export const EXACT_FILTER_LABELS = 1_024;

const TABLE_ENTRIES = 4_096;
const MIN_OUT_FLOATS = 32_768;
export class IvfIndex {
  readonly dimensions: number;
  readonly lists: number;
  readonly blockRows: number;
  /** Lists a search scans by default. */
  nprobe: number;
  /** True when loaded from a file of an older format (float rows): saving it again writes the current one. */
  olderFile = false;
  /** Floats of a padded float row (the query, the centroids). */
  readonly #stride: number;
  readonly #rowBytes: number;
  readonly #arena: VectorArena;
  readonly #kernel: DotsKernel;
  readonly #lists: IvfLists;
  readonly #queryAt = 0;
  readonly #query16At: number;
  /** The scale of the int16 query of the search under way. */
  #queryScale = 0;
  readonly #tableAt: number;
  readonly #outAt: number;
  readonly #outFloats: number;
  readonly #centroidsAt: number;
  readonly #entryList = new Int32Array(TABLE_ENTRIES);
  readonly #entrySlot = new Int32Array(TABLE_ENTRIES);
  /** The file the index was opened from, while some of its lists are unread (`open`). */
  #file: IvfFileReader | undefined;

  constructor(options: IvfIndexOptions) {
    const { dimensions, centroids } = options;
    if (!Number.isInteger(dimensions) || dimensions <= 0)
      throw new InvalidRequestError('dimensions must be a positive integer.', 'dimensions');
    const lists = centroids.length / dimensions;
    if (!Number.isInteger(lists) || lists < 1)
      throw new InvalidRequestError('centroids must hold whole vectors of dimensions floats.', 'centroids');
    this.dimensions = dimensions;
    this.lists = lists;
    this.blockRows = options.blockRows ?? 64;
    this.nprobe = options.nprobe ?? defaultProbes(lists);
    this.#stride = paddedDimensions(dimensions);
    this.#outFloats = Math.ceil(Math.max(MIN_OUT_FLOATS, lists, this.blockRows) / 16) * 16;
    this.#rowBytes = rowBytes(this.#stride);
    this.#query16At = this.#stride * 4;
    this.#tableAt = this.#query16At + this.#stride * 2;
    this.#outAt = this.#tableAt + TABLE_ENTRIES * 8;
    this.#centroidsAt = this.#outAt + this.#outFloats * 4;
    this.#arena = new VectorArena({
      reservedBytes: this.#centroidsAt + lists * this.#stride * 4,
      blockBytes: this.blockRows * this.#rowBytes,
      maximumBytes: options.maximumBytes,
    });
    this.#kernel = instantiateDots(this.#arena.memory);
    this.#lists = new IvfLists(lists, this.blockRows, this.#rowBytes, this.#arena);
    const floats = this.#arena.floats();
    for (let list = 0; list < lists; list++)
      this.#writeUnit(centroids, list * dimensions, this.#centroidsAt / 4 + list * this.#stride, floats);
  }

  /** Reads an index written by `save`; `options` as the constructor's (the file gives dimensions and centroids). */
  static load(path: string, options: Omit<IvfIndexOptions, 'dimensions' | 'centroids'> = {}): IvfIndex {
    const index = IvfIndex.open(path, options);
    index.readAll();
    return index;
  }

  /**
   * Opens an index written by `save` without reading its lists: a search reads the lists it probes first, and
   * `readMore` / `readAll` read the rest. Anything that needs the whole index (a filtered search, a write, its
   * labels, a save) reads the rest first. Until then the file stays open (`close`). The memory for all lists
   * is taken at once.
   */
  static open(path: string, options: Omit<IvfIndexOptions, 'dimensions' | 'centroids'> = {}): IvfIndex {
    const reader = IvfFileReader.open(path);
    try {
      const index = new IvfIndex({ ...options, dimensions: reader.dimensions, centroids: reader.centroids });
      index.olderFile = reader.floatRows;
      let blocks = 0;
      for (let list = 0; list < reader.lists; list++) blocks += Math.ceil(reader.count(list) / index.blockRows);
      index.#arena.reserve(blocks);
      index.#file = reader;
      return index;
    } catch (error) {
      reader.close();
      throw error;
    }
  }

  /** True when every list is in memory (the file, if any, is closed). */
  get complete(): boolean {
    return this.#file === undefined;
  }

  /** Reads unread lists in file order for about `milliseconds`; answers whether the index is complete. */
  readMore(milliseconds: number): boolean {
    // The label map sized once, here rather than at open (~40 ms for 500k labels; grown list by list it
    // would rehash them all a few times).
    if (this.#file && this.count <= 2 ** 31) this.#lists.reserveLabels(this.count);
    if (this.#file?.readMore(this, milliseconds)) this.#file = undefined;
    return this.complete;
  }

  /** Reads every list not read yet. */
  readAll(): void {
    while (!this.readMore(Number.POSITIVE_INFINITY));
  }

  /** Closes the file the index was opened from; lists not read by then stay empty. */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }

  /** Maps the pages of the vectors `[from, from + bytes)` (bytes of the arena); answers where to go on, undefined at the end (`VectorArena.touch`). */
  warm(from: number, bytes: number): number | undefined {
    return this.#arena.touch(from, bytes);
  }

  /** Writes the index to `path`: a temporary file renamed over it. */
  save(path: string): void {
    writeIvfFile(this, path);
  }

  /** Vectors held. */
  get count(): number {
    return this.#lists.count + (this.#file?.unreadRows ?? 0);
  }

  /** Bytes held: the WebAssembly memory (with its growth headroom), the labels and an estimate of the label map. */
  get bytes(): number {
    return this.#arena.bytes + this.#lists.bytes;
  }

  /** Every label held, in list order (what a catch-up compares with the database). */
  labels(): Float64Array {
    this.readAll();
    return this.#lists.labels();
  }

  /** Whether `label` is held. */
  has(label: number): boolean {
    this.readAll();
    return this.#lists.has(label);
  }

  /** The centroids, normalised, `lists x dimensions`. */
  centroids(): Float32Array {
    const out = new Float32Array(this.lists * this.dimensions);
    const floats = this.#arena.floats();
    for (let list = 0; list < this.lists; list++) {
      const from = this.#centroidsAt / 4 + list * this.#stride;
      out.set(floats.subarray(from, from + this.dimensions), list * this.dimensions);
    }
    return out;
  }

  /**
   * Adds (or replaces) vectors, `labels.length x dimensions` floats, each normalised into the list of its
   * nearest centroid. The memory is grown for the whole batch first: when it cannot grow, nothing changed.
   */
  add(labels: ArrayLike<number>, vectors: Float32Array): void {
    const { dimensions } = this;
    if (vectors.length !== labels.length * dimensions)
      throw new InvalidRequestError(`Expected ${labels.length} vectors of ${dimensions} floats, got ${vectors.length} floats.`, 'vectors');
    for (let i = 0; i < labels.length; i++)
      if (!Number.isSafeInteger(labels[i]) || labels[i]! < 0) throw new InvalidRequestError(`Invalid label ${labels[i]}.`, 'labels');
    this.readAll();
    const target = new Int32Array(labels.length);
    const growth = new Int32Array(this.lists);
    for (let i = 0; i < labels.length; i++) {
      this.#writeUnit(vectors, i * dimensions, this.#queryAt / 4, this.#arena.floats());
      target[i] = this.#nearestList();
      growth[target[i]!]!++;
    }
    this.#arena.reserve(this.#lists.blocksNeeded(growth));
    for (let i = 0; i < labels.length; i++) {
      this.#lists.remove(labels[i]!);
      const row = this.#lists.append(target[i]!, labels[i]!);
      this.#writeUnit(vectors, i * dimensions, this.#queryAt / 4, this.#arena.floats());
      this.storeRow(this.#arena.floats(), this.#queryAt / 4, row);
    }
  }

  /** Removes labels (swap-remove in their lists); unknown labels are skipped. Answers how many were removed. */
  delete(labels: ArrayLike<number>): number {
    this.readAll();
    let removed = 0;
    for (let i = 0; i < labels.length; i++) if (this.#lists.remove(labels[i]!)) removed++;
    return removed;
  }

  /** The `k` labels most similar to `query`, best first. */
  search(query: ArrayLike<number>, k: number, options: IvfSearchOptions = {}): IvfHit[] {
    if (query.length !== this.dimensions)
      throw new InvalidRequestError(`The query has ${query.length} dimensions; the index ${this.dimensions}.`, 'query');
    if (k <= 0 || this.count === 0) return [];
    this.#writeUnit(query, 0, this.#queryAt / 4, this.#arena.floats());
    this.#queryScale = writeQuery16(
      this.#arena.floats(),
      this.#queryAt / 4,
      this.dimensions,
      this.#stride,
      this.#arena.int16(),
      this.#query16At,
    );
    const { allowed } = options;
    if (allowed) this.readAll();
    const top = new TopHits(Math.min(k, this.count));
    const nprobe = Math.max(1, Math.min(this.lists, options.nprobe ?? this.nprobe));
    if (allowed && allowedLabels(allowed) <= (options.exactLimit ?? this.exactFilterLimit(nprobe))) this.#scoreAllowed(allowed, top);
    else this.#scanLists(nprobe, top, allowed);
    const hits: IvfHit[] = [];
    for (let i = 0; i < top.size; i++) hits.push({ label: top.labels[i]!, distance: 1 - top.scores[i]! });
    return hits;
  }

  /** The most allowed labels a filtered search scores exactly: `EXACT_FILTER_LABELS` or half what `nprobe` lists hold on average. */
  exactFilterLimit(nprobe: number = this.nprobe): number {
    return Math.max(EXACT_FILTER_LABELS, Math.round((this.count * nprobe) / this.lists / 2));
  }

  /** The lists, for the file writer (read-only use). */
  listsForSave(): readonly IvfList[] {
    this.readAll();
    return this.#lists.all;
  }

  /** The byte offset of a list's slot (for the file writer and reader). */
  rowOf(list: number, slot: number): number {
    return this.#lists.rowOf(list, slot);
  }

  /** `length` bytes of the index's memory at `offset`: a view, valid until the memory grows. */
  bytesAt(offset: number, length: number): Uint8Array {
    return this.#arena.bytesAt(offset, length);
  }

  /** Padded dimensions: the int8 values of a row. */
  get stride(): number {
    return this.#stride;
  }

  /** Bytes of one stored row. */
  get rowBytes(): number {
    return this.#rowBytes;
  }

  /** Writes `source[from .. from + dimensions)`, a normalised vector, as the 8-bit row at byte `at`. */
  storeRow(source: ArrayLike<number>, from: number, at: number): void {
    writeRow8(source, from, this.dimensions, this.#stride, { int8: this.#arena.int8(), floats: this.#arena.floats() }, at);
  }

  /**
   * Appends `labels` to `list` as stored rows; `fill(row, first, rows)` writes `rows` consecutive rows from byte
   * offset `row` (within one block). For the file reader.
   */
  appendStored(list: number, labels: Float64Array, fill: (row: number, first: number, rows: number) => void): void {
    const owner = this.#lists.all[list]!;
    this.#lists.reserve(list, labels.length);
    this.#arena.reserve(Math.ceil((owner.count + labels.length) / this.blockRows) - owner.blocks.length);
    let first = 0;
    while (first < labels.length) {
      const slot = owner.count;
      const rows = Math.min(labels.length - first, this.blockRows - (slot % this.blockRows));
      for (let i = 0; i < rows; i++) this.#lists.append(list, labels[first + i]!);
      fill(this.rowOf(list, slot), first, rows);
      first += rows;
    }
  }

  /** The nearest centroid of the vector at the query slot. */
  #nearestList(): number {
    this.#kernel.dots(this.#queryAt, this.#centroidsAt, this.lists, this.#stride, this.#outAt);
    const scores = this.#arena.floats();
    const from = this.#outAt / 4;
    let best = 0;
    for (let list = 1; list < this.lists; list++) if (scores[from + list]! > scores[from + best]!) best = list;
    return best;
  }

  /** Scores the lists nearest the query (more, until `top` is full, when a filter skips labels). */
  #scanLists(nprobe: number, top: TopHits, allowed: Float64Array | undefined): void {
    this.#kernel.dots(this.#queryAt, this.#centroidsAt, this.lists, this.#stride, this.#outAt);
    const scores = this.#arena.floats().slice(this.#outAt / 4, this.#outAt / 4 + this.lists);
    const order = Array.from({ length: this.lists }, (_, list) => list);
    if (allowed) order.sort((a, b) => scores[b]! - scores[a]!);
    else {
      const nearest = new TopHits(nprobe);
      for (let list = 0; list < this.lists; list++) if (scores[list]! > nearest.floor) nearest.push(scores[list]!, list);
      order.length = 0;
      for (let i = 0; i < nearest.size; i++) order.push(nearest.labels[i]!);
      // Lists still in the file are read now (their memory was taken at open: the views below stay valid).
      for (const list of order) this.#file?.readList(list, this);
    }
    const table = new Uint32Array(this.#arena.memory.buffer, this.#tableAt, TABLE_ENTRIES * 2);
    let entries = 0;
    let floats = 0;
    for (let i = 0; i < order.length; i++) {
      if (i >= nprobe && top.size === top.k) break;
      const list = order[i]!;
      const { blocks, count } = this.#lists.all[list]!;
      for (let block = 0; block < blocks.length; block++) {
        const rows = Math.min(this.blockRows, count - block * this.blockRows);
        if (entries === TABLE_ENTRIES || floats + rows > this.#outFloats) {
          this.#consume(entries, top, allowed);
          entries = 0;
          floats = 0;
        }
        table[2 * entries] = blocks[block]!;
        table[2 * entries + 1] = rows;
        this.#entryList[entries] = list;
        this.#entrySlot[entries] = block * this.blockRows;
        entries++;
        floats += rows;
      }
      // With a filter, what this list found decides whether the next is needed.
      if (allowed && i + 1 >= nprobe && entries > 0) {
        this.#consume(entries, top, allowed);
        entries = 0;
        floats = 0;
      }
    }
    if (entries > 0) this.#consume(entries, top, allowed);
  }

  /** Scores exactly the allowed labels the index holds. */
  #scoreAllowed(allowed: Float64Array, top: TopHits): void {
    const table = new Uint32Array(this.#arena.memory.buffer, this.#tableAt, TABLE_ENTRIES * 2);
    let entries = 0;
    let floats = 0;
    for (let range = 0; range < allowed.length; range += 2) {
      for (let label = allowed[range]!; label <= allowed[range + 1]!; label++) {
        const where = this.#lists.locate(label);
        if (where === undefined) continue;
        const list = listOf(where);
        const slot = slotOf(where);
        if (floats === this.#outFloats) {
          this.#consume(entries, top, undefined);
          entries = 0;
          floats = 0;
        }
        floats++;
        // Labels added one after another sit in consecutive slots: one run for them.
        const last = entries - 1;
        if (
          last >= 0 &&
          this.#entryList[last] === list &&
          this.#entrySlot[last]! + table[2 * last + 1]! === slot &&
          slot % this.blockRows !== 0
        ) {
          table[2 * last + 1]!++;
          continue;
        }
        table[2 * entries] = this.rowOf(list, slot);
        table[2 * entries + 1] = 1;
        this.#entryList[entries] = list;
        this.#entrySlot[entries] = slot;
        if (++entries === TABLE_ENTRIES) {
          this.#consume(entries, top, undefined);
          entries = 0;
          floats = 0;
        }
      }
    }
    if (entries > 0) this.#consume(entries, top, undefined);
  }

  /** Runs the kernel over the table's entries and keeps the best allowed labels. */
  #consume(entries: number, top: TopHits, allowed: Float64Array | undefined): void {
    this.#kernel.dots8Table(this.#query16At, this.#tableAt, entries, this.#stride, this.#outAt, this.#queryScale);
    const scores = this.#arena.floats();
    const table = new Uint32Array(this.#arena.memory.buffer, this.#tableAt, entries * 2);
    let at = this.#outAt / 4;
    for (let entry = 0; entry < entries; entry++) {
      const labels = this.#lists.all[this.#entryList[entry]!]!.labels;
      const first = this.#entrySlot[entry]!;
      const rows = table[2 * entry + 1]!;
      for (let row = 0; row < rows; row++) {
        const score = scores[at++]!;
        if (score <= top.floor) continue;
        const label = labels[first + row]!;
        if (allowed && !inRanges(allowed, label)) continue;
        top.push(score, label);
      }
    }
  }

  /** Writes `source[from .. from + dimensions)` normalised (zero-padded to the stride) at float offset `row`. */
  #writeUnit(source: ArrayLike<number>, from: number, row: number, floats: Float32Array): void {
    let norm = 0;
    for (let d = 0; d < this.dimensions; d++) norm += source[from + d]! * source[from + d]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let d = 0; d < this.dimensions; d++) floats[row + d] = source[from + d]! * scale;
    floats.fill(0, row + this.dimensions, row + this.#stride);
  }
}

/** How many labels the ranges allow (an upper bound of those the index holds). */
function allowedLabels(allowed: Float64Array): number {
  let total = 0;
  for (let range = 0; range < allowed.length; range += 2) total += allowed[range + 1]! - allowed[range]! + 1;
  return total;
}
