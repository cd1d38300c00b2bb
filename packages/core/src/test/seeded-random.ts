/** The tests' deterministic generator is the one the IVF's training uses (`internal/seeded-random.ts`). */
export { seededRandom } from '../internal/seeded-random';
