import type { FathomConfig } from '../config';
import type { Embedder } from '../embeddings';
import type { Logger } from '../internal/logger';
import type { SqlClient } from '../storage';
import { Chat } from './chat';
import { ChatAdapter } from './chat-adapter';
import { ChatCompletions } from './chat-completions';
import { Embeddings } from './embeddings';
import { Models } from './models';
import type { ChatProvider } from './providers/chat-provider';
import { SqlStoredCompletionsRepository } from './stored-completions';
import { type KeyLabels, Usage, type UsageGroups } from './usage';
import type { ModelCallMeter } from './types';
import { UsageStore } from './usage-store';
import { LatencyStore } from './latency-store';
import { ErrorStore } from './error-store';

export interface ModelsCapabilityOptions {
  /** The database of usage counts and stored completions (SQLite or PostgreSQL). */
  db: SqlClient;
  config: FathomConfig;
  log: Logger;
  /** Fathom's own embedder, serving `fathom.embeddings` for models that name no vendor. */
  embedder?: Embedder;
  /** Providers to use instead of those built from `config.providers` (tests). */
  providers?: ChatProvider[];
  /** Charges every model call made for an account (the spend capability's meter). */
  meter?: ModelCallMeter;
  /** The grouped usage view (`group_by`), from the spend capability's call log. */
  usageGroups?: UsageGroups;
  /** Names the keys of grouped usage answers (the accounts capability's keys). */
  keyLabels?: KeyLabels;
}

/** The models capability as the composition root wires it: the sub-resources, and the router other capabilities call. */
export interface ModelsCapability {
  /** The internal model router assistants, Responses, agents and data tools call. */
  router: ChatAdapter;
  chat: Chat;
  embeddings: Embeddings;
  models: Models;
  usage: Usage;
  /** Writes pending usage counts and closes the providers' connections. */
  close(): Promise<void>;
}

/** Builds the models capability over one usage store, shared by every model call and `fathom.usage`. */
export function createModels(options: ModelsCapabilityOptions): ModelsCapability {
  const { db, config, log, embedder } = options;
  const usageStore = new UsageStore(db, { log });
  const latencyStore = new LatencyStore(db, { log });
  const errorStore = new ErrorStore(db, { log });
  const router = new ChatAdapter({ config, usage: usageStore, providers: options.providers, meter: options.meter, latency: latencyStore });
  return {
    router,
    chat: new Chat(new ChatCompletions({ router, repository: new SqlStoredCompletionsRepository(db) })),
    embeddings: new Embeddings({ router, config, usage: usageStore, embedder, meter: options.meter }),
    models: new Models({ router, config, log }),
    usage: new Usage({
      store: usageStore,
      groups: options.usageGroups,
      latency: latencyStore,
      errors: errorStore,
      keyLabels: options.keyLabels,
    }),
    async close() {
      await usageStore.close().catch((error: Error) => log.warn(`models: usage counts lost at close: ${error.message}`));
      await latencyStore.close().catch((error: Error) => log.warn(`models: call latencies lost at close: ${error.message}`));
      await errorStore.close().catch((error: Error) => log.warn(`models: error counts lost at close: ${error.message}`));
      await router.close();
    },
  };
}
