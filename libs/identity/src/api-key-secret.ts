import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { END_USER_TOKEN_PREFIX } from './end-user-token';

/** The prefix of every key this service makes (API-SPEC §5.2). */
export const KEY_PREFIX = 'sk-svc-';

/** A new secret: the prefix and 256 random bits. Shown once, stored only as its hash. */
export function generateKeySecret(): string {
  return `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** SHA-256, hex. Keys are high-entropy random strings, so a fast hash is enough and keeps lookups indexable. */
export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes of equal length. */
export function hashesEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

type ParsedHeader = { ok: true; secret: string } | { ok: false; reason: string };

/**
 * What a key may look like: RFC 6750's b64token (letters, digits, `-._~+/`, then `=` padding), at most
 * KEY_MAX_CHARS. `sk-svc-` keys are base64url; a legacy key must fit it too (and be LEGACY_KEY_MIN_CHARS long).
 */
const KEY_TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;
const KEY_MAX_CHARS = 512;
/**
 * An end-user token carries its user id, up to ten agent ids and five memory namespaces, so it may be longer than
 * a key: the longest grant (every text at its limit, each character JSON-escaped to six bytes) fits.
 */
export const END_USER_TOKEN_MAX_CHARS = 8192;
const LEGACY_KEY_MIN_CHARS = 20;
const BEARER = 'Bearer ';

const isKeyToken = (value: string): boolean =>
  value.length <= (value.startsWith(END_USER_TOKEN_PREFIX) ? END_USER_TOKEN_MAX_CHARS : KEY_MAX_CHARS) &&
  KEY_TOKEN.test(value);

/**
 * The secret in an `x-service-token` header, parsed exactly (§5.2): the key as it is, or `Bearer`, one
 * space, and the key. Anything else (empty, a tab or two spaces, two Bearer prefixes, characters a key
 * cannot have) is malformed: nothing is trimmed or guessed, so a header never authenticates as part of itself.
 */
export function parseServiceTokenHeader(header: string | string[] | undefined): ParsedHeader {
  if (header === undefined)
    return { ok: false, reason: 'Missing x-service-token or Authorization: Bearer header' };
  if (Array.isArray(header)) return { ok: false, reason: 'Malformed x-service-token header' };
  const secret = header.startsWith(BEARER) ? header.slice(BEARER.length) : header;
  // `Bearer` alone is a prefix without its key (HTTP drops the space that followed it).
  if (!isKeyToken(secret) || secret === BEARER.trim()) {
    return { ok: false, reason: 'Malformed x-service-token header' };
  }
  return { ok: true, secret };
}

/**
 * The header that carries the credential: `x-service-token`, else `Authorization: Bearer …`, which browsers' and
 * SDKs' clients send (an Authorization of another scheme, e.g. the dashboard's Basic, is not a key).
 */
export function credentialHeader(headers: {
  'x-service-token'?: string | string[];
  authorization?: string;
}): string | string[] | undefined {
  const serviceToken = headers['x-service-token'];
  if (serviceToken !== undefined) return serviceToken;
  const authorization = headers.authorization;
  return authorization?.startsWith(BEARER) ? authorization : undefined;
}

/** Why a legacy key cannot be imported, or null when it can (CONTRACTS §1 `keys:import`). */
export function legacyKeyProblem(secret: string): string | null {
  if (secret.startsWith(KEY_PREFIX)) return `a legacy key has no ${KEY_PREFIX} prefix`;
  // The guard reads such a secret as an end-user token, so as a key it could never authenticate.
  if (secret.startsWith(END_USER_TOKEN_PREFIX))
    return `a legacy key does not start with ${END_USER_TOKEN_PREFIX}`;
  if (secret.length < LEGACY_KEY_MIN_CHARS || !isKeyToken(secret)) {
    return (
      `a legacy key is ${LEGACY_KEY_MIN_CHARS} to ${KEY_MAX_CHARS} characters of letters, digits and ` +
      '"-._~+/" (then "=" padding)'
    );
  }
  return null;
}
