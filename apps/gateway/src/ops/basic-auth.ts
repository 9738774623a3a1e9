import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

/** Compares in constant time: both sides are hashed first, so their lengths never differ. */
const sameSecret = (given: string, expected: string) => timingSafeEqual(digest(given), digest(expected));

/** True when an `Authorization: Basic …` header names the configured user and password. */
export function basicAuthAccepts(header: string | undefined, user: string, password: string): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? '');
  if (!match) return false;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return false;
  // Both compared every time, so the answer's timing does not tell which one was wrong.
  const userOk = sameSecret(decoded.slice(0, colon), user);
  const passwordOk = sameSecret(decoded.slice(colon + 1), password);
  return userOk && passwordOk;
}
