import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import { isDeniedAddress } from '@app/agent';

/** A webhook URL that cannot be delivered to; `reason` says why, for a 422 or an attempt's error. */
export class UndeliverableUrlError extends Error {}

/**
 * Refuses a URL that is not http(s) or whose host is, or resolves to, a private, loopback or link-local
 * address (the web tool's rules), unless `allowPrivate`. Checked at creation; delivery checks again on its own
 * connection (webhook-sender), since a name may resolve elsewhere later.
 */
export async function assertDeliverableUrl(value: string, allowPrivate: boolean): Promise<void> {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UndeliverableUrlError('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UndeliverableUrlError('only http and https URLs are accepted');
  }
  if (allowPrivate) return;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await dns.lookup(host, { all: true })).map((entry) => entry.address);
  } catch {
    throw new UndeliverableUrlError(`${host} does not resolve`);
  }
  if (addresses.some((address) => isDeniedAddress(address))) {
    throw new UndeliverableUrlError(`${host} is, or resolves to, a private, loopback or link-local address`);
  }
}
