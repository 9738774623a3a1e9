import { lookup as dnsLookup, LookupAddress } from 'node:dns';
import { BlockList, isIP, LookupFunction } from 'node:net';

/**
 * Addresses the `web` tool never connects to: this host, private networks, link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, unique-local IPv6, multicast and reserved ranges. IPv4-mapped IPv6
 * addresses (`::ffff:127.0.0.1`) are matched by their IPv4 rules.
 */
const DENIED = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  DENIED.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const) {
  DENIED.addSubnet(network, prefix, 'ipv6');
}

/** The fetch was refused because the host is, or resolves to, a denied address. */
export class DeniedAddressError extends Error {}

export function isDeniedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return DENIED.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Refuses a URL whose host is itself a denied IP address (Node connects to IP literals without a lookup). */
export function checkLiteralHost(hostname: string): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && isDeniedAddress(host)) {
    throw new DeniedAddressError(`${host} is a private, loopback or link-local address`);
  }
}

/**
 * A DNS lookup for the socket that drops denied addresses from the answer, so the connection goes only to an
 * address that was checked: a name that resolves differently on a second lookup (DNS rebinding) cannot slip
 * through, since there is no second lookup.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, '', 0);
    const allowed = addresses.filter((entry) => !isDeniedAddress(entry.address));
    if (allowed.length === 0) {
      const denied = new DeniedAddressError(
        `${hostname} resolves to a private, loopback or link-local address (${addresses[0]?.address ?? 'none'})`,
      );
      return callback(denied as NodeJS.ErrnoException, '', 0);
    }
    if (options.all) return (callback as unknown as (e: null, all: LookupAddress[]) => void)(null, allowed);
    callback(null, allowed[0].address, allowed[0].family);
  });
};
