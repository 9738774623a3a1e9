import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { egressRequest } from './egress-request';

/** `fetch` as libraries that take one call it (the MCP SDK's `FetchLike`). */
type EgressFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/** Statuses whose response has no body, which the Response constructor refuses one for. */
const NO_BODY = new Set([101, 204, 205, 304]);

/**
 * A `fetch` for libraries that make their own requests (the MCP SDK's streamable HTTP transport) that goes
 * through `egressRequest`: each request is checked on the address it connects to, and a redirect is answered as
 * it came, never followed, so the library decides (the MCP SDK follows one only within the origin, each hop
 * through this fetch again). Bodies stream, for server-sent events.
 */
export function egressFetch(allowPrivate: boolean): EgressFetch {
  return (input, init = {}) =>
    new Promise((resolve, reject) => {
      const url = new URL(input);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new TypeError(`only http and https URLs are fetched, not ${url.protocol}`);
      }
      const method = (init.method ?? 'GET').toUpperCase();
      const request = egressRequest(
        url,
        { method, headers: Object.fromEntries(new Headers(init.headers)), signal: init.signal ?? undefined },
        allowPrivate,
      );
      request.on('response', (response) => resolve(toResponse(response, method)));
      request.on('error', reject);
      request.end(requestBody(init.body));
    });
}

function requestBody(body: RequestInit['body']): string | Uint8Array | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  throw new TypeError('egressFetch sends a string or bytes body only');
}

function toResponse(response: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (const [name, value] of Object.entries(response.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
      headers.append(name, item);
    }
  }
  const status = response.statusCode ?? 0;
  const init = { status, statusText: response.statusMessage ?? '', headers };
  if (NO_BODY.has(status) || method === 'HEAD') {
    response.resume();
    return new Response(null, init);
  }
  return new Response(Readable.toWeb(response) as ReadableStream<Uint8Array>, init);
}
