/**
 * Label -> where (list x 2^32 + slot) of an IVF index's rows: an open-addressing hash table over two
 * `Float64Array`s (linear probing, deletion by backward shift) instead of a `Map`. A shard holds ~500,000 labels
 * at 1M chunks; building its `Map` while a file loaded cost ~0.4 s of garbage collection, and ~40 bytes an entry
 * against 16 per slot here (at most half the slots used). Labels are chunk ids: integers from 0 to 2^53.
 */
const EMPTY = -1;
const TWO_32 = 2 ** 32;

export class LabelMap {
  #keys: Float64Array;
  #values: Float64Array;
  #mask: number;
  #size = 0;

  constructor(expected = 0) {
    const slots = slotsFor(expected);
    this.#keys = new Float64Array(slots).fill(EMPTY);
    this.#values = new Float64Array(slots);
    this.#mask = slots - 1;
  }

  get size(): number {
    return this.#size;
  }

  /** Bytes of the two arrays. */
  get bytes(): number {
    return this.#keys.byteLength + this.#values.byteLength;
  }

  /** Makes room for `count` labels in all without growing again. */
  reserve(count: number): void {
    if (slotsFor(count) > this.#keys.length) this.#resize(slotsFor(count));
  }

  has(label: number): boolean {
    return this.#find(label) >= 0;
  }

  get(label: number): number | undefined {
    const at = this.#find(label);
    return at >= 0 ? this.#values[at] : undefined;
  }

  set(label: number, value: number): void {
    if (2 * (this.#size + 1) > this.#keys.length) this.#resize(this.#keys.length * 2);
    let at = this.#home(label);
    for (;;) {
      const key = this.#keys[at]!;
      if (key === label) {
        this.#values[at] = value;
        return;
      }
      if (key === EMPTY) break;
      at = (at + 1) & this.#mask;
    }
    this.#keys[at] = label;
    this.#values[at] = value;
    this.#size++;
  }

  /** Removes `label`; answers whether it was there. The entries after it in its run move back into the hole. */
  delete(label: number): boolean {
    let hole = this.#find(label);
    if (hole < 0) return false;
    const keys = this.#keys;
    for (let at = (hole + 1) & this.#mask; keys[at] !== EMPTY; at = (at + 1) & this.#mask) {
      // The entry at `at` may fill the hole when its home is not inside (hole, at], cyclically.
      const home = this.#home(keys[at]!);
      const between = hole < at ? home > hole && home <= at : home > hole || home <= at;
      if (between) continue;
      keys[hole] = keys[at]!;
      this.#values[hole] = this.#values[at]!;
      hole = at;
    }
    keys[hole] = EMPTY;
    this.#size--;
    return true;
  }

  #find(label: number): number {
    for (let at = this.#home(label); ; at = (at + 1) & this.#mask) {
      const key = this.#keys[at]!;
      if (key === label) return at;
      if (key === EMPTY) return -1;
    }
  }

  #home(label: number): number {
    const mixed = Math.imul((label >>> 0) ^ Math.imul(Math.floor(label / TWO_32), 0x85ebca6b), 0x9e3779b1);
    return (mixed ^ (mixed >>> 15)) & this.#mask;
  }

  #resize(slots: number): void {
    const keys = this.#keys;
    const values = this.#values;
    this.#keys = new Float64Array(slots).fill(EMPTY);
    this.#values = new Float64Array(slots);
    this.#mask = slots - 1;
    this.#size = 0;
    for (let at = 0; at < keys.length; at++) if (keys[at] !== EMPTY) this.set(keys[at]!, values[at]!);
  }
}

/** A power of two at least twice `count` (at least 16). */
function slotsFor(count: number): number {
  let slots = 16;
  while (slots < 2 * count) slots *= 2;
  return slots;
}
