import { silentLogger, type Logger } from '../internal/logger';
import type { ChatAdapterContract } from '../models/types';
import type { RunAsOrigin } from '../spend';
import type { SqlClient } from '../storage';
import type { StoreSearcher } from '../vector/types';
import { Assistants } from './assistants';
import type { AssistantsContext } from './assistants-context';
import { SqlAssistantsRepository } from './assistants-repository';
import { RunEvents } from './run-events';
import { RunWorker } from './run-worker';
import { SqlRunsRepository } from './runs-repository';
import type { ThreadStores } from './thread-stores';
import { SqlThreadsRepository } from './threads-repository';
import { Threads } from './threads';

export interface AssistantsOptions {
  /** The database (SQLite or PostgreSQL) holding assistants, threads and runs. */
  db: SqlClient;
  /** The model gateway (`ChatAdapter`). */
  chat: ChatAdapterContract;
  /** Document search over vector stores (`Documents`). */
  searcher: StoreSearcher;
  /**
   * Vector stores for threads (the composition root wires it to `Documents`): checks that store and file
   * ids are the account's when saved, and indexes files attached to messages. Without it, ids are not
   * checked and attachments are stored but not indexed.
   */
  stores?: ThreadStores;
  /** Default: silent. */
  log?: Logger;
  /** Model answers asking for tools allowed per run before it fails; default 8. */
  maxToolRounds?: number;
  /** Longest wait (ms) for stores still ingesting before a file_search; default 60000, as OpenAI. */
  ingestionWaitMs?: number;
  /** Seconds a run may take (and wait in `requires_action`) before it expires; default 600 (OpenAI: 10 minutes). */
  runExpirySeconds?: number;
  /** Lease of an executing run, ms: another process takes the run over when it is not renewed; default 30000 (`FATHOM_LEASE_SECONDS`). */
  leaseMs?: number;
  /** How often this process looks for runs whose process stopped, ms; default 1000. */
  pollMs?: number;
  /** Claims of one run (since it last started) before it ends `failed` with `server_error`; default 3. */
  maxAttempts?: number;
  /** Runs this process takes over from stopped processes at once; default 16. */
  concurrency?: number;
  /** Runs a run charged to the key that created it (spend control); default: no key. */
  runAsOrigin?: RunAsOrigin;
}

/** The assistants capability: its two sub-resources, and the background execution of runs in this process. */
export interface AssistantsCapability {
  assistants: Assistants;
  threads: Threads;
  /** Starts taking over runs whose process stopped (after a crash, or another node's). */
  start(): void;
  /** Stops the runs executing here (another process, or the next start, goes on with them) and ends open streams. */
  close(): Promise<void>;
}

/**
 * Assistants, threads, messages, runs and run steps over the storage seam (SQLite or PostgreSQL), with
 * the run loop that lets the model call `file_search` (and the caller's functions). Runs are leased
 * background work (`RunWorker`): any number of processes on one database share them, and a run whose
 * process stopped is taken over and goes on.
 */
export function createAssistants(options: AssistantsOptions): AssistantsCapability {
  if (!options?.db) throw new TypeError('createAssistants: `db` is required.');
  if (!options.chat) throw new TypeError('createAssistants: `chat` (a ChatAdapterContract) is required.');
  if (!options.searcher) throw new TypeError('createAssistants: `searcher` (a StoreSearcher) is required.');
  const events = new RunEvents();
  const deps = {
    db: options.db,
    assistants: new SqlAssistantsRepository(options.db),
    threads: new SqlThreadsRepository(options.db),
    runs: new SqlRunsRepository(options.db),
    events,
    chat: options.chat,
    searcher: options.searcher,
    log: options.log ?? silentLogger,
    maxToolRounds: options.maxToolRounds ?? 8,
    ingestionWaitMs: options.ingestionWaitMs ?? 60_000,
  };
  const worker = new RunWorker(deps, {
    leaseMs: options.leaseMs ?? 30_000,
    pollMs: options.pollMs ?? 1000,
    maxAttempts: options.maxAttempts ?? 3,
    concurrency: options.concurrency ?? 16,
    runAsOrigin: options.runAsOrigin,
  });
  const context: AssistantsContext = { deps, stores: options.stores, worker, expirySeconds: options.runExpirySeconds ?? 600 };
  return {
    assistants: new Assistants(context),
    threads: new Threads(context),
    start: () => worker.start(),
    async close() {
      await worker.close();
      events.closeAll();
    },
  };
}
