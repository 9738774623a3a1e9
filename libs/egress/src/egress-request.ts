import { ClientRequest, request as httpRequest, RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkLiteralHost, guardedLookup } from './address-policy';

/**
 * Starts a request the service makes for a tenant (the `web` tool, a webhook delivery, a remote MCP server):
 * unless `allowPrivate`, a host that is an IP literal is checked here, and a name is resolved by
 * `guardedLookup` for this connection only (no agent, so no socket reused from another host), so the request
 * reaches only an address that was just checked: no second look-up can answer differently. Redirects are never
 * followed here; a caller that follows one starts a new request, checked again.
 * Throws DeniedAddressError for a denied literal; a denied name fails the request with it.
 */
export function egressRequest(url: URL, options: RequestOptions, allowPrivate: boolean): ClientRequest {
  if (!allowPrivate) checkLiteralHost(url.hostname);
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return request(url, { ...options, agent: false, lookup: allowPrivate ? undefined : guardedLookup });
}
