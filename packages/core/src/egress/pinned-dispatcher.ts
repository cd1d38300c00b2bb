import type { LookupAddress, LookupOptions } from 'node:dns';
import { Agent } from 'undici';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** How many host names keep their checked addresses; older ones are forgotten first. */
const MAX_PINNED_HOSTS = 1024;

/**
 * An undici Agent that never asks DNS itself: its `connect.lookup` answers only with the addresses
 * the guard checked for that host name (no DNS-rebinding window between check and connect).
 * A host name the guard did not check fails to connect.
 */
export class PinnedDispatcher {
  readonly agent: Agent;
  private readonly pinned = new Map<string, LookupAddress[]>();

  constructor() {
    this.agent = new Agent({
      connect: { lookup: (hostname: string, options: LookupOptions, callback: LookupCallback) => this.lookup(hostname, options, callback) },
    } as ConstructorParameters<typeof Agent>[0]);
  }

  /** Records the checked addresses of a host name (the last check wins; every one was checked). */
  pin(hostname: string, addresses: LookupAddress[]): void {
    const key = hostname.toLowerCase();
    this.pinned.delete(key);
    this.pinned.set(key, addresses);
    if (this.pinned.size > MAX_PINNED_HOSTS) this.pinned.delete(this.pinned.keys().next().value as string);
  }

  private lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void {
    const all = this.pinned.get(hostname.toLowerCase());
    const family = options?.family === 4 || options?.family === 6 ? options.family : 0;
    const addresses = (all ?? []).filter((entry) => family === 0 || entry.family === family);
    if (addresses.length === 0) {
      const error: NodeJS.ErrnoException = new Error(`egress: ${hostname} was not checked by the egress guard`);
      error.code = 'ENOTFOUND';
      process.nextTick(callback, error, options?.all ? [] : '', 0);
      return;
    }
    if (options?.all) process.nextTick(callback, null, addresses);
    else process.nextTick(callback, null, addresses[0]!.address, addresses[0]!.family);
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
