/** One `AGENT_EGRESS_ALLOW` entry, normalised by the WHATWG URL parser (so `0x7f.1` equals `127.0.0.1`). */
export interface AllowEntry {
  host: string;
  /** Undefined = any port. */
  port?: string;
}

function bareHost(hostname: string): string {
  let host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (host.endsWith('.')) host = host.slice(0, -1);
  return host;
}

/** Parses entries `host`, `IP`, `host:port`, `[v6]`, `[v6]:port`, bare `v6` or a URL; unparsable entries are skipped. */
export function parseAllowList(entries: readonly string[]): AllowEntry[] {
  const parsed: AllowEntry[] = [];
  for (const raw of entries) {
    let entry = raw.trim();
    if (!entry) continue;
    try {
      // An entry written as a URL (`http://svc.local:8080`) counts by its host and explicit port.
      if (entry.includes('://')) {
        const url = new URL(entry);
        parsed.push({ host: bareHost(url.hostname), port: url.port || undefined });
        continue;
      }
      if (/[\s/?#@]/.test(entry)) continue;
      // A bare IPv6 address (`::1`, `fd00::5`) has colons but no brackets.
      if (!entry.startsWith('[') && (entry.match(/:/g)?.length ?? 0) > 1) entry = `[${entry}]`;
      const url = new URL(`http://${entry}`);
      // new URL drops `:80` for http; keep the port the entry named.
      const port = /:\d+$/.test(entry) ? String(Number(entry.slice(entry.lastIndexOf(':') + 1))) : undefined;
      parsed.push({ host: bareHost(url.hostname), port });
    } catch {
      // Ignore entries that are not host names or addresses.
    }
  }
  return parsed;
}

/** The port a URL connects to (explicit, or the scheme's default). */
export function effectivePort(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

/** True when `host` (a name or an address, any spelling the URL parser accepts) on `port` is allowed. */
export function isAllowed(list: readonly AllowEntry[], host: string, port: string): boolean {
  const wanted = bareHost(host);
  return list.some((entry) => entry.host === wanted && (entry.port === undefined || entry.port === port));
}

export { bareHost };
