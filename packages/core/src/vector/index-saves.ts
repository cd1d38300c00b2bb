/**
 * When the graph worker saves a changed index (an HNSW graph or an IVF, `hnsw-worker.ts` / `ivf-shards.ts`):
 * 3 s after the last change, at most 30 s after the first unsaved one, the timed save joining the worker's
 * request queue (so it never overlaps a flush's save of the same files, and no insert changes the index
 * while it is written). And how either reads its JSON sidecar.
 */
import { readFileSync } from 'node:fs';
import { threadId } from 'node:worker_threads';

const SAVE_DELAY_MS = 3_000;
const SAVE_MAX_DELAY_MS = 30_000;
/** Unique per writer, so two processes saving the same store never write one temporary file. */
export const TMP_SUFFIX = `.tmp-${process.pid}-${threadId}`;

/** The save state of an index held by the worker. */
export interface SavedIndex {
  /** The database generation the index reflects exactly; -1 when unknown (then it is never saved). */
  generation: number;
  dirty: boolean;
  timer?: NodeJS.Timeout;
  firstDirtyAt: number;
}

/** Records a change reflecting `generation` and (re)schedules the timed save, which `enqueue` runs as `save`. */
export function markDirty(
  index: SavedIndex,
  generation: number,
  enqueue: (task: () => Promise<void>) => void,
  save: () => Promise<void>,
): void {
  index.generation = generation;
  if (!index.dirty) index.firstDirtyAt = Date.now();
  index.dirty = true;
  if (index.timer) clearTimeout(index.timer);
  const delay = Math.max(0, Math.min(SAVE_DELAY_MS, index.firstDirtyAt + SAVE_MAX_DELAY_MS - Date.now()));
  index.timer = setTimeout(() => {
    index.timer = undefined;
    enqueue(() => save().catch(() => void (index.dirty = true)));
  }, delay);
}

/** The JSON sidecar of the index file at `path` (`<path>.json`), or null when missing or unreadable. */
export function readSidecar<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(`${path}.json`, 'utf8')) as T;
  } catch {
    return null;
  }
}
