import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { isIP, LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/** A connection was refused because the host is, or resolves to, a denied address. */
export class DeniedAddressError extends Error {}

/**
 * Why the service never connects to `address` for a tenant (the `web` tool, webhooks, remote MCP servers), or
 * null when it may. Only what ipaddr.js (a maintained table of the IANA special-purpose registries) calls
 * `unicast` is allowed: private, loopback, link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * documentation, benchmarking, multicast, broadcast, unspecified, 6to4, Teredo and NAT64 prefixes are not. An
 * IPv6 address that carries an IPv4 address (`embeddedIpv4`) is judged as that IPv4 address first, so no
 * spelling of loopback or metadata gets through. Any address of this host's own interfaces is refused too,
 * whatever its range: a listener bound to it is this machine.
 */
export function deniedReason(
  address: string,
  ownAddresses: ReadonlySet<string> = hostAddresses(),
): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const ipv6 = parsed as ipaddr.IPv6;
    const carried = embeddedIpv4(ipv6);
    // A mapped address is the IPv4 address itself; other forms are judged as their IPv4 and then as IPv6.
    if (carried && ipv6.isIPv4MappedAddress()) return reasonAsIs(carried, ownAddresses);
    const carriedReason = carried && reasonAsIs(carried, ownAddresses);
    if (carriedReason) return `${carriedReason} inside an IPv6 address`;
    if (carried && isIpv4Compatible(ipv6)) return 'a deprecated IPv4-compatible address';
  }
  return reasonAsIs(parsed, ownAddresses);
}

/** The reason of an address taken as it is (no embedded address looked for). */
function reasonAsIs(parsed: ipaddr.IPv4 | ipaddr.IPv6, ownAddresses: ReadonlySet<string>): string | null {
  if (ownAddresses.has(parsed.toNormalizedString())) return 'an address of this host';
  const range = parsed.range();
  return range === 'unicast' ? null : `a ${range} address`;
}

/** `::a.b.c.d` (RFC 4291 §2.5.5.1, deprecated), but not `::` or `::1`. */
function isIpv4Compatible(ipv6: ipaddr.IPv6): boolean {
  const parts = ipv6.parts;
  return parts.slice(0, 6).every((part) => part === 0) && (parts[6] !== 0 || parts[7] > 1);
}

/**
 * The IPv4 address an IPv6 address carries, in each form a stack or a translator may turn into an IPv4
 * connection: mapped `::ffff:a.b.c.d`, translated `::ffff:0:a.b.c.d` (RFC 6145), IPv4-compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::a.b.c.d` (RFC 6052; and `64:ff9b:1::/48` of RFC 8215 with a /96 prefix), 6to4 `2002:AABB:CCDD::` (RFC 3056) and
 * Teredo's client address (RFC 4380, its last 32 bits inverted). Null for any other address.
 */
function embeddedIpv4(ipv6: ipaddr.IPv6): ipaddr.IPv4 | null {
  const parts = ipv6.parts;
  const fromWords = (high: number, low: number) =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  const zeros = (from: number, to: number) => parts.slice(from, to).every((part) => part === 0);
  if (ipv6.isIPv4MappedAddress() || isIpv4Compatible(ipv6)) return fromWords(parts[6], parts[7]);
  if (zeros(0, 4) && parts[4] === 0xffff && parts[5] === 0) return fromWords(parts[6], parts[7]);
  if (parts[0] === 0x64 && parts[1] === 0xff9b && (zeros(2, 6) || parts[2] === 1)) {
    return fromWords(parts[6], parts[7]);
  }
  if (parts[0] === 0x2002) return fromWords(parts[1], parts[2]);
  if (parts[0] === 0x2001 && parts[1] === 0) return fromWords(parts[6] ^ 0xffff, parts[7] ^ 0xffff);
  return null;
}

export function isDeniedAddress(address: string, ownAddresses?: ReadonlySet<string>): boolean {
  return deniedReason(address, ownAddresses) !== null;
}

/** The addresses of this host's interfaces, normalized as ipaddr.js writes them; read at each check. */
export function hostAddresses(): Set<string> {
  const own = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) {
      // A link-local IPv6 address carries its zone (`fe80::1%eth0`); the address alone is what a URL gives.
      const address = entry.address.split('%')[0];
      if (ipaddr.isValid(address)) own.add(ipaddr.parse(address).toNormalizedString());
    }
  }
  return own;
}

/** Refuses a URL whose host is itself a denied IP address (Node connects to IP literals without a lookup). */
export function checkLiteralHost(hostname: string): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (!isIP(host)) return;
  const reason = deniedReason(host);
  if (reason) throw new DeniedAddressError(`${host} is ${reason}`);
}

/**
 * A DNS lookup for the socket that drops denied addresses from the answer, so the connection goes only to an
 * address that was checked: a name that resolves differently on a second lookup (DNS rebinding) cannot slip
 * through, since there is no second lookup.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const own = hostAddresses();
    const allowed = addresses.filter((entry) => !isDeniedAddress(entry.address, own));
    if (allowed.length === 0) {
      const first = addresses[0]?.address;
      const denied = new DeniedAddressError(
        `${hostname} resolves to ${first ? `${first}, ${deniedReason(first, own)}` : 'no address'}`,
      );
      return callback(denied as NodeJS.ErrnoException, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};
