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
 * IPv4-mapped IPv6 address is judged as its IPv4 address. Any address of this host's own interfaces is refused
 * too, whatever its range: a listener bound to it is this machine.
 */
export function deniedReason(
  address: string,
  ownAddresses: ReadonlySet<string> = hostAddresses(),
): string | null {
  if (!ipaddr.isValid(address)) return 'not an IP address';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  if (ownAddresses.has(parsed.toNormalizedString())) return 'an address of this host';
  const range = parsed.range();
  return range === 'unicast' ? null : `a ${range} address`;
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
