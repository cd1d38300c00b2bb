import type { Worker } from 'node:worker_threads';
import { siblingWorkerUrl, startWorker } from '../internal/worker-options';
import type { HnswAddResult, HnswOpenResult, HnswReply, HnswRequest, HnswSearchResult, IvfOpenResult } from './hnsw-protocol';

/**
 * Main-thread handle on the HNSW worker: one promise per request, answered in order. The worker is
 * started on first use and only keeps the process alive while requests are pending.
 */
export class HnswClient {
  private worker?: Worker;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private failure?: Error;

  private start(): Worker {
    if (this.worker) return this.worker;
    const url = siblingWorkerUrl(import.meta.url, 'hnsw-worker');
    const worker = startWorker(url);
    worker.unref();
    worker.on('message', (reply: HnswReply) => {
      const waiter = this.pending.get(reply.id);
      if (!waiter) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) worker.unref();
      if (reply.ok) waiter.resolve(reply.result);
      else waiter.reject(new Error(reply.error));
    });
    const fail = (error: Error) => {
      this.failure = error;
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
      this.worker = undefined;
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.worker === worker) fail(new Error(`HNSW worker exited with code ${code}.`));
    });
    this.worker = worker;
    return worker;
  }

  private call<T>(request: HnswRequest, transfer: ArrayBuffer[] = []): Promise<T> {
    const worker = this.start();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      // The worker answers each request id with the result of that request's `op`, which `T` names.
      this.pending.set(id, { resolve: (value) => resolve(value as T), reject });
      if (this.pending.size === 1) worker.ref();
      worker.postMessage({ id, request }, transfer);
    });
  }

  /** Whether a worker crash made the indexes in memory unreliable (callers reopen and rebuild). */
  get crashed(): Error | undefined {
    return this.failure;
  }

  open(request: Omit<Extract<HnswRequest, { op: 'open' }>, 'op'>): Promise<HnswOpenResult> {
    this.failure = undefined;
    return this.call({ op: 'open', ...request });
  }

  add(store: string, labels: number[], vectors: Float32Array, generation: number): Promise<HnswAddResult> {
    return this.call({ op: 'add', store, labels, vectors, generation }, [vectors.buffer as ArrayBuffer]);
  }

  /** Marks labels deleted; answers how many were in the graph and not deleted yet. */
  delete(store: string, labels: number[], generation: number): Promise<number> {
    return this.call({ op: 'delete', store, labels, generation });
  }

  search(request: Omit<Extract<HnswRequest, { op: 'search' }>, 'op'>): Promise<HnswSearchResult> {
    return this.call({ op: 'search', ...request });
  }

  /** Loads a shard's IVF file when usable (an IVF shard then answers the other requests under `store`). */
  openIvf(request: Omit<Extract<HnswRequest, { op: 'open-ivf' }>, 'op'>): Promise<IvfOpenResult> {
    this.failure = undefined;
    return this.call({ op: 'open-ivf', ...request });
  }

  /** Starts an empty IVF shard over trained centroids. */
  createIvf(request: Omit<Extract<HnswRequest, { op: 'create-ivf' }>, 'op'>): Promise<HnswAddResult> {
    return this.call({ op: 'create-ivf', ...request }, [request.centroids.buffer as ArrayBuffer]);
  }

  /** The IVF under `from` replaces the one under `to` (dropped), keeping its own path. */
  replaceIvf(from: string, to: string): Promise<void> {
    return this.call({ op: 'replace-ivf', from, to });
  }

  /** Every label in the store's graph (deleted ones included), in no order. */
  labels(store: string): Promise<Float64Array> {
    return this.call({ op: 'labels', store });
  }

  /** Saves the store's graph if it changed and frees it (it is opened again when next used). */
  unload(store: string): Promise<void> {
    return this.worker ? this.call({ op: 'unload', store }) : Promise.resolve();
  }

  drop(store: string): Promise<void> {
    return this.call({ op: 'drop', store });
  }

  flush(): Promise<void> {
    return this.worker ? this.call({ op: 'flush' }) : Promise.resolve();
  }

  /** Saves dirty indexes, then stops the worker. */
  async close(): Promise<void> {
    if (!this.worker) return;
    try {
      await this.flush();
    } finally {
      const worker = this.worker;
      this.worker = undefined;
      await worker?.terminate();
    }
  }
}
