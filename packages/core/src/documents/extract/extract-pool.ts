import { availableParallelism } from 'node:os';
import { Piscina } from 'piscina';
import { siblingWorkerUrl, workerExecArgv } from '../../internal/worker-options';
import { readFile, stat } from 'node:fs/promises';
import { ExtractionError, memoryMessage } from './extraction-error';
import { detectFormat, extractText } from './extract-text';
import { FairSlots } from './fair-slots';
import type { TextChunk } from '../chunking';
import type { ExtractResult, ExtractTask } from './extract.worker';

export interface ExtractPoolOptions {
  /** Worker threads; default min(2, cores). `FATHOM_EXTRACT_THREADS`. */
  threads?: number;
  /** Heap cap of each parse in MB; default 512, at least 32. `FATHOM_EXTRACT_MEMORY_MB`. */
  memoryMb?: number;
  /** Deadline of each parse in ms; default 60000. `FATHOM_EXTRACT_TIMEOUT_MS`. */
  timeoutMs?: number;
  /**
   * Plain-text formats (text, Markdown, code, CSV, JSON, HTML) up to this many bytes are read on the
   * calling thread: their output is bounded by their size and they parse in about a millisecond, less
   * than a worker round trip. PDF and DOCX always go to a worker. Default 131072; 0 sends everything.
   */
  inlineTextBytes?: number;
}

/** Who a parse is for: its account (threads are shared fairly between accounts) and how to stop it. */
export interface ExtractOptions {
  signal?: AbortSignal;
  /** The account the file belongs to; default one shared key. */
  account?: string;
  /**
   * Work a request waits for (`input_file` of a response): an account runs at most threads − 1 of these
   * at once (at least 1), so a flood of them leaves a thread to other accounts.
   */
  interactive?: boolean;
}

/**
 * Text extraction in worker threads (piscina): the event loop never parses, each parse has a memory cap
 * (the V8 heap through `resourceLimits`, and the ArrayBuffers of decompressed data, which the heap cap
 * does not count, inside the worker: see `memory-guard.ts`) and a deadline counted from its start, and a
 * worker that blows either is replaced while the file ends `failed` (`invalid_file`). The threads are
 * shared fairly between accounts (`FairSlots`): one account's queue of files never holds another
 * account's file behind all of it.
 */
export class ExtractPool {
  private readonly pool: Piscina;
  private readonly slots: FairSlots;
  private readonly memoryMb: number;
  private readonly timeoutMs: number;
  private readonly inlineTextBytes: number;

  constructor(options: ExtractPoolOptions = {}) {
    const filename = siblingWorkerUrl(import.meta.url, 'extract.worker');
    // Below ~32 MB V8 can abort the whole process instead of the worker, so the cap has a floor.
    this.memoryMb = Math.max(32, options.memoryMb ?? 512);
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.inlineTextBytes = options.inlineTextBytes ?? 128 * 1024;
    const threads = options.threads ?? Math.max(1, Math.min(2, availableParallelism()));
    this.slots = new FairSlots(threads);
    this.pool = new Piscina({
      filename: filename.href,
      execArgv: workerExecArgv(filename),
      minThreads: 0,
      maxThreads: threads,
      idleTimeout: 30_000,
      resourceLimits: {
        maxOldGenerationSizeMb: this.memoryMb,
        maxYoungGenerationSizeMb: Math.max(2, Math.min(16, Math.floor(this.memoryMb / 16))),
      },
    });
  }

  /** Text of the file at `path`, or an `ExtractionError` saying what was wrong. */
  async extract(task: ExtractTask, options: ExtractOptions = {}): Promise<string> {
    if (this.inlineTextBytes > 0) {
      const size =
        task.size ??
        (await stat(task.path).then(
          (info) => info.size,
          () => -1,
        ));
      if (size >= 0 && size <= this.inlineTextBytes) {
        const bytes = await readFile(task.path);
        let format: string;
        try {
          format = detectFormat(task.filename, bytes);
        } catch {
          format = 'binary';
        }
        if (format !== 'pdf' && format !== 'docx' && format !== 'binary') return extractText(task.filename, bytes);
      }
    }
    return (await this.run(task, options)).text;
  }

  /** Extracts, chunks and embeds in the worker (`task.prepare` names a worker-capable embedder). */
  async prepare(task: ExtractTask & { prepare: NonNullable<ExtractTask['prepare']> }, options: ExtractOptions = {}) {
    // Embedding adds work proportional to the size: allow 4 s more per MB on top of the parse deadline.
    const size =
      task.size ??
      (await stat(task.path).then(
        (info) => info.size,
        () => 0,
      ));
    const result = await this.run(task, options, this.timeoutMs + Math.ceil(size / 1e6) * 4_000);
    const spans = result.spans ?? new Int32Array();
    const flat = result.vectors ?? new Float32Array();
    const dimensions = result.dimensions ?? 0;
    const chunks: TextChunk[] = [];
    for (let i = 0; i < spans.length / 3; i++) {
      const [start, end, tokens] = [spans[i * 3]!, spans[i * 3 + 1]!, spans[i * 3 + 2]!];
      chunks.push({ index: i, text: result.text.slice(start, end), tokens, start, end });
    }
    return { chunks, vectors: chunks.map((_, i) => flat.subarray(i * dimensions, (i + 1) * dimensions)) };
  }

  private async run(task: ExtractTask, options: ExtractOptions, timeoutMs = this.timeoutMs): Promise<Extract<ExtractResult, { ok: true }>> {
    const { signal } = options;
    let release: () => void;
    try {
      release = await this.slots.acquire(options.account ?? '', { capped: options.interactive, signal });
    } catch {
      throw new ExtractionError('server_error', 'ingestion was cancelled');
    }
    // The deadline counts from the start of the parse, not from the wait for a thread.
    const deadline = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let result: ExtractResult;
    try {
      result = (await this.pool.run({ ...task, memoryMb: this.memoryMb }, { signal: combined })) as ExtractResult;
    } catch (error) {
      if (signal?.aborted) throw new ExtractionError('server_error', 'ingestion was cancelled');
      if (deadline.aborted) {
        throw new ExtractionError('invalid_file', `parsing the file took longer than ${Math.round(timeoutMs / 1000)} s`);
      }
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ERR_WORKER_OUT_OF_MEMORY' || /out of memory|heap/i.test((error as Error).message)) {
        throw new ExtractionError('invalid_file', memoryMessage(this.memoryMb));
      }
      throw new ExtractionError('server_error', `text extraction crashed: ${(error as Error).message}`);
    } finally {
      release();
    }
    if (!result.ok) throw new ExtractionError(result.code as ExtractionError['code'], result.message);
    return result;
  }

  async close(): Promise<void> {
    await this.pool.destroy();
  }
}
