import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { deniedReason, hostAddresses } from './address-policy';

/** A URL the service will not reach for a tenant; the message says why, for a 422 or a recorded error. */
export class EgressUrlError extends Error {}

/**
 * Refuses a URL that is not http(s), or whose host is, or resolves to, an address `deniedReason` refuses (every
 * address it resolves to must pass), unless `allowPrivate`. This is the check when a URL is stored (webhooks,
 * remote MCP servers); each connection checks again on the address it connects to (`egressRequest`), since a
 * name may resolve elsewhere later.
 */
export async function assertEgressUrl(value: string, allowPrivate: boolean): Promise<void> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new EgressUrlError('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressUrlError('only http and https URLs are accepted');
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new EgressUrlError(`${host} does not resolve`);
  }
  const own = hostAddresses();
  for (const address of addresses) {
    const reason = deniedReason(address, own);
    if (!reason) continue;
    throw new EgressUrlError(
      address === host ? `${host} is ${reason}` : `${host} resolves to ${address}, ${reason}`,
    );
  }
}
