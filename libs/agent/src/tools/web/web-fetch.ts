import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { DeniedAddressError, egressRequest } from '@app/egress';

export interface WebFetchLimits {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Lets the fetch reach private, loopback and link-local addresses. */
  allowPrivate: boolean;
}

export interface FetchedPage {
  /** The URL the body came from, after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
  /** The body was longer than maxBytes and was cut there. */
  truncated: boolean;
}

/** A fetch that did not give a page: the model sees the message as an error result. */
export class WebFetchError extends Error {}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs an http(s) URL with the `web` tool's safeguards: each hop (redirects are followed here, one at a time)
 * has its host checked after DNS resolution, the whole fetch has one deadline, and the body is read up to a cap
 * after decompression.
 */
export async function fetchPage(
  url: string,
  limits: WebFetchLimits,
  signal: AbortSignal,
): Promise<FetchedPage> {
  const deadline = AbortSignal.timeout(limits.timeoutMs);
  const combined = AbortSignal.any([signal, deadline]);
  let current = parseHttpUrl(url);
  try {
    for (let hop = 0; ; hop++) {
      const response = await get(current, limits.allowPrivate, combined);
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode ?? 0) && location) {
        response.destroy();
        if (hop >= limits.maxRedirects)
          throw new WebFetchError(`too many redirects (more than ${limits.maxRedirects})`);
        current = parseHttpUrl(new URL(location, current).toString());
        continue;
      }
      const { body, truncated } = await readBody(response, limits.maxBytes);
      return {
        url: current.toString(),
        status: response.statusCode ?? 0,
        contentType: response.headers['content-type'] ?? '',
        body,
        truncated,
      };
    }
  } catch (error) {
    if (deadline.aborted) throw new WebFetchError(`no complete answer within ${limits.timeoutMs / 1000} s`);
    if (signal.aborted) throw error;
    if (error instanceof WebFetchError) throw error;
    if (error instanceof DeniedAddressError)
      throw new WebFetchError(`refused ${current.toString()}: ${error.message}`);
    throw new WebFetchError(`cannot fetch ${current.toString()}: ${(error as Error).message}`);
  }
}

function parseHttpUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new WebFetchError(`not a URL: ${value}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new WebFetchError(`only http and https URLs can be fetched, not ${url.protocol}`);
  }
  return url;
}

function get(url: URL, allowPrivate: boolean, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const req = egressRequest(
      url,
      {
        method: 'GET',
        signal,
        headers: {
          'user-agent': 'Parley-WebTool/1.0',
          accept: 'text/html,application/xhtml+xml,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
      },
      allowPrivate,
    );
    req.on('response', resolve);
    req.on('error', reject);
    req.end();
  });
}

async function readBody(
  response: IncomingMessage,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  const stream = decoded(response);
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}

/** The body decompressed as its content-encoding says; the size cap then applies to what it expands to. */
function decoded(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '')
    .trim()
    .toLowerCase();
  const decoder =
    encoding === 'gzip' || encoding === 'x-gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  if (!decoder) return response;
  response.on('error', (error) => decoder.destroy(error));
  return response.pipe(decoder);
}
