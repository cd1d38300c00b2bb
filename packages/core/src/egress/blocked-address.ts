import ipaddr from 'ipaddr.js';

/**
 * Ranges an outbound call may reach. ipaddr.js names every special-purpose block (private, loopback,
 * linkLocal, carrierGradeNat, uniqueLocal, unspecified, multicast, broadcast, reserved, 6to4, teredo,
 * rfc6052 NAT64...); only plain `unicast` is public. IPv4-mapped IPv6 is unwrapped first.
 */
const PUBLIC_RANGES = new Set(['unicast']);

/** The ipaddr.js range name of an address (`'loopback'`, `'private'`, `'unicast'`...), or `'invalid'`. */
export function addressRange(ip: string): string {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(bare)) return 'invalid';
  const address = ipaddr.process(bare);
  const range = address.range();
  if (range === 'unicast' && address.kind() === 'ipv6') {
    const parts = (address as ipaddr.IPv6).parts;
    // ::a.b.c.d (deprecated IPv4-compatible, ::/96): ipaddr.js calls it unicast; it is not public.
    if (parts.slice(0, 6).every((part) => part === 0)) return 'ipv4Compatible';
  }
  return range;
}

/**
 * True when an outbound call must not reach `ip`: private (10/8, 172.16/12, 192.168/16), loopback
 * (127/8, ::1), link-local (169.254/16 incl. metadata 169.254.169.254, fe80::/10), CGNAT (100.64/10),
 * unique-local (fc00::/7 incl. fd00:ec2::254), unspecified (0/8, ::), IPv4-mapped forms of those,
 * every other special-purpose block, and anything that is not an IP address at all.
 */
export function isBlockedAddress(ip: string): boolean {
  return !PUBLIC_RANGES.has(addressRange(ip));
}
