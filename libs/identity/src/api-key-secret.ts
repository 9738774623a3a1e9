import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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

export type ParsedHeader = { ok: true; secret: string } | { ok: false; reason: string };

/**
 * The secret in an `x-service-token` header: the key as it is, or after exactly one `Bearer ` (§5.2).
 * Anything else (empty, two Bearer prefixes, inner whitespace) is malformed.
 */
export function parseServiceTokenHeader(header: string | string[] | undefined): ParsedHeader {
  if (header === undefined) return { ok: false, reason: 'Missing x-service-token header' };
  if (Array.isArray(header)) return { ok: false, reason: 'Malformed x-service-token header' };
  let value = header.trim();
  if (/^bearer\s/i.test(value)) value = value.slice(value.indexOf(' ')).trim();
  if (value === '' || /\s/.test(value) || /^bearer$/i.test(value)) {
    return { ok: false, reason: 'Malformed x-service-token header' };
  }
  return { ok: true, secret: value };
}
