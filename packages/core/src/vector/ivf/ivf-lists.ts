/**
 * The IVF index's lists: per list its blocks in the arena, how many rows it holds and their labels by slot,
 * and a label -> (list, slot) map. Rows are appended at a list's end and removed by swap-remove (the list's
 * last row and label move into the hole), so a list's rows always fill its blocks from the first.
 */
import { LabelMap } from './label-map';
import type { VectorArena } from './vector-arena';

/** One list: its blocks (byte offsets), how many vectors it holds, and their labels by slot. */
export interface IvfList {
  blocks: number[];
  count: number;
  labels: Float64Array;
}

/** A map value: list x 2^32 + slot. */
const SLOT_SPAN = 2 ** 32;

export class IvfLists {
  readonly all: IvfList[] = [];
  readonly #where = new LabelMap();

  constructor(
    lists: number,
    readonly blockRows: number,
    /** Bytes of one row (an 8-bit row: `rowBytes`). */
    readonly rowBytes: number,
    readonly arena: VectorArena,
  ) {
    for (let list = 0; list < lists; list++) this.all.push({ blocks: [], count: 0, labels: new Float64Array(0) });
  }

  /** Rows held. */
  get count(): number {
    return this.#where.size;
  }

  /** Bytes outside the arena: the labels and the label map. */
  get bytes(): number {
    let labels = 0;
    for (const list of this.all) labels += list.labels.byteLength;
    return labels + this.#where.bytes;
  }

  /** Makes room for `count` labels in all in the label map (a file's header says how many: the map is sized once). */
  reserveLabels(count: number): void {
    this.#where.reserve(count);
  }

  /** Makes room for `more` labels in `list` and in the label map (a file being loaded says how many). */
  reserve(list: number, more: number): void {
    const owner = this.all[list]!;
    this.#where.reserve(this.#where.size + more);
    if (owner.count + more <= owner.labels.length) return;
    const grown = new Float64Array(owner.count + more);
    grown.set(owner.labels.subarray(0, owner.count));
    owner.labels = grown;
  }

  has(label: number): boolean {
    return this.#where.has(label);
  }

  /** Where `label` is, as list x 2^32 + slot (`listOf`, `slotOf`), or undefined. */
  locate(label: number): number | undefined {
    return this.#where.get(label);
  }

  /** The byte offset in the arena of a list's slot. */
  rowOf(list: number, slot: number): number {
    const owner = this.all[list]!;
    return owner.blocks[Math.floor(slot / this.blockRows)]! + (slot % this.blockRows) * this.rowBytes;
  }

  /** Blocks the lists need beyond those they own to take `growth[list]` more rows each. */
  blocksNeeded(growth: Int32Array): number {
    let blocks = 0;
    this.all.forEach(({ count, blocks: owned }, list) => {
      blocks += Math.max(0, Math.ceil((count + growth[list]!) / this.blockRows) - owned.length);
    });
    return blocks;
  }

  /** Claims the next slot of `list` for `label` (a new block when the last is full); answers its row's byte offset. */
  append(list: number, label: number): number {
    const owner = this.all[list]!;
    if (owner.count === owner.blocks.length * this.blockRows) owner.blocks.push(this.arena.allocate());
    if (owner.count === owner.labels.length) {
      const grown = new Float64Array(Math.max(this.blockRows, Math.ceil(owner.labels.length * 1.5)));
      grown.set(owner.labels);
      owner.labels = grown;
    }
    const slot = owner.count++;
    owner.labels[slot] = label;
    this.#where.set(label, list * SLOT_SPAN + slot);
    return this.rowOf(list, slot);
  }

  /** Swap-remove: the list's last row and label move into the hole; an emptied block goes back to the arena. */
  remove(label: number): boolean {
    const where = this.#where.get(label);
    if (where === undefined) return false;
    this.#where.delete(label);
    const list = listOf(where);
    const slot = slotOf(where);
    const owner = this.all[list]!;
    const last = --owner.count;
    if (slot !== last) {
      const moved = owner.labels[last]!;
      owner.labels[slot] = moved;
      this.#where.set(moved, list * SLOT_SPAN + slot);
      const from = this.rowOf(list, last);
      this.arena.int8().copyWithin(this.rowOf(list, slot), from, from + this.rowBytes);
    }
    if (owner.count === (owner.blocks.length - 1) * this.blockRows) this.arena.release(owner.blocks.pop()!);
    return true;
  }

  /** Every label held, in list order. */
  labels(): Float64Array {
    const all = new Float64Array(this.count);
    let at = 0;
    for (const list of this.all) {
      all.set(list.labels.subarray(0, list.count), at);
      at += list.count;
    }
    return all;
  }
}

export function listOf(where: number): number {
  return Math.floor(where / SLOT_SPAN);
}

export function slotOf(where: number): number {
  return where % SLOT_SPAN;
}
