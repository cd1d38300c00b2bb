import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../internal/seeded-random';
import { LabelMap } from './label-map';

describe('LabelMap', () => {
  it('answers as a Map does through random sets, overwrites and deletes, labels past 2^32 included', () => {
    const random = seededRandom(11);
    const map = new LabelMap();
    const reference = new Map<number, number>();
    // Few distinct labels, so runs collide and deletions shift entries back; some far above 2^32.
    const label = () => (random() < 0.2 ? 2 ** 40 + Math.floor(random() * 300) * 2 ** 32 : Math.floor(random() * 3_000));
    for (let step = 0; step < 60_000; step++) {
      const key = label();
      const op = random();
      if (op < 0.55) {
        const value = Math.floor(random() * 2 ** 40);
        map.set(key, value);
        reference.set(key, value);
      } else if (op < 0.85) {
        expect(map.delete(key)).toBe(reference.delete(key));
      } else {
        expect(map.get(key)).toBe(reference.get(key));
        expect(map.has(key)).toBe(reference.has(key));
      }
      expect(map.size).toBe(reference.size);
    }
    for (const [key, value] of reference) expect(map.get(key)).toBe(value);
    for (let key = 0; key < 3_000; key++) expect(map.has(key)).toBe(reference.has(key));
  });

  it('grows as it fills, and a reservation sizes it once', () => {
    const map = new LabelMap();
    for (let label = 0; label < 10_000; label++) map.set(label * 7, label);
    expect(map.size).toBe(10_000);
    expect(map.bytes).toBe(2 * 8 * 32_768); // the next power of two at least twice the labels, two arrays
    const reserved = new LabelMap();
    reserved.reserve(10_000);
    expect(reserved.bytes).toBe(map.bytes);
    expect(reserved.get(7)).toBeUndefined();
  });
});
