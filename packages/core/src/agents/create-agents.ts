import { type LeasedTask, LeasedWorker, type TaskContext } from '../internal/leased-worker';
import type { AgentsOptions } from './agent-deps';
import { failInterruptedRun } from './agent-runs';
import { Agents } from './agents';
import type { AgentsContext } from './agents-context';
import { SqlAgentsRepository } from './agents-repository';
import { builtInTools } from './built-in-tools';

/** The agents capability: `fathom.agents`, and the worker that ends runs whose process stopped. */
export interface AgentsCapability {
  agents: Agents;
  /** Starts ending runs whose process stopped (after a crash, or another node's) as failed. */
  start(): void;
  /** Aborts runs still in progress here (they end failed) and waits for them. */
  close(): Promise<void>;
}

/**
 * The agent service over the storage seam (SQLite or PostgreSQL): agents with their versions, runs and
 * the tool preview. Runs are leased to the process executing them; a run whose process stopped is
 * claimed by any process once its lease ends and ended `failed`.
 */
export function createAgents(options: AgentsOptions): AgentsCapability {
  const store = new SqlAgentsRepository(options.db);
  const leaseMs = (options.config.leaseSeconds ?? 30) * 1000;
  const interrupted = (task: LeasedTask, context: TaskContext) => failInterruptedRun(store, options.log, task, context);
  const worker = new LeasedWorker<LeasedTask>({
    name: 'agent runs',
    queue: store.queue(),
    run: interrupted,
    exhausted: interrupted,
    leaseMs,
    pollMs: options.pollMs ?? 1000,
    log: options.log,
  });
  const context: AgentsContext = { options, store, builtIns: builtInTools(options.chat, options.config.webSearch), worker, leaseMs };
  return {
    agents: new Agents(context),
    start: () => worker.start(),
    close: () => worker.close(),
  };
}
