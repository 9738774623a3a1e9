import { createHmac, timingSafeEqual } from 'node:crypto';

/** The prefix of every end-user token (CONTRACTS §17), so the guard tells one from a key at a glance. */
export const END_USER_TOKEN_PREFIX = 'eut_';

/**
 * Version of the signed payload's layout: a token of a version not listed here is refused, never misread.
 * Version 1 (before memory namespaces, CONTRACTS §21) still verifies, as a grant of no namespace: refusing it
 * would sign out every browser at a deploy, and it can reach no memory anyway.
 */
const PAYLOAD_VERSION = 2;
const LEGACY_PAYLOAD_VERSION = 1;

/** What an end-user token grants: one end user of the minting key's organization, maybe only some agents. */
export interface EndUserGrant {
  /** The key that minted it: revoking that key revokes the token. */
  keyId: string;
  orgId: string;
  userId: string;
  /** The agents the token may chat with; null: every agent of the organization. */
  agentIds: string[] | null;
  /** The memory namespaces its runs may be bound to (CONTRACTS §21); empty: none. */
  memoryNamespaces: string[];
  expiresAt: Date;
}

/** The payload as signed: a JSON array in a fixed order, so one grant has exactly one encoding. */
type Payload = [
  version: number,
  keyId: string,
  orgId: string,
  userId: string,
  agentIds: string[] | null,
  exp: number,
  memoryNamespaces: string[],
];

const BASE64URL = /^[A-Za-z0-9_-]*$/;

/**
 * The bytes of `text` if it is their one canonical unpadded base64url spelling; null otherwise. Node's decoder
 * is lenient (it skips characters outside the alphabet, accepts `=` padding and the `+/` alphabet, and ignores
 * a last character's unused low bits), so several strings decode to the same bytes: re-encoding and comparing
 * leaves exactly one (CONTRACTS §21, "one spelling per token").
 */
export function decodeCanonicalBase64url(text: string): Buffer | null {
  if (!BASE64URL.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

const signatureOf = (secret: string, encodedPayload: string): Buffer =>
  createHmac('sha256', secret).update(`${END_USER_TOKEN_PREFIX}${encodedPayload}`, 'utf8').digest();

/**
 * `eut_<base64url payload>.<base64url HMAC-SHA256>`: stateless, so any gateway verifies it with the
 * deployment's secret alone. The payload is readable (it names nothing secret), but not changeable.
 */
export function signEndUserToken(secret: string, grant: EndUserGrant): string {
  const payload: Payload = [
    PAYLOAD_VERSION,
    grant.keyId,
    grant.orgId,
    grant.userId,
    grant.agentIds,
    Math.floor(grant.expiresAt.getTime() / 1000),
    grant.memoryNamespaces,
  ];
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${END_USER_TOKEN_PREFIX}${encoded}.${signatureOf(secret, encoded).toString('base64url')}`;
}

/**
 * The two parts of a string shaped as a token, each in its canonical spelling (nothing verified yet); null
 * for any other string.
 */
function tokenParts(token: string): { encoded: string; payload: Buffer; signature: Buffer } | null {
  if (!token.startsWith(END_USER_TOKEN_PREFIX)) return null;
  const [encoded, signature, ...rest] = token.slice(END_USER_TOKEN_PREFIX.length).split('.');
  if (!encoded || !signature || rest.length > 0) return null;
  const payloadBytes = decodeCanonicalBase64url(encoded);
  const signatureBytes = decodeCanonicalBase64url(signature);
  return payloadBytes && signatureBytes
    ? { encoded, payload: payloadBytes, signature: signatureBytes }
    : null;
}

/**
 * What names a token for counting (the rate limit), before it is verified: the bytes of its signed payload, in
 * their canonical spelling. Every spelling of one token (refused by the verifier or not) counts against that
 * token, never against a bucket of its own. Null when the string is not shaped as a token.
 */
export function endUserTokenIdentity(token: string): string | null {
  if (!token.startsWith(END_USER_TOKEN_PREFIX)) return null;
  const dot = token.indexOf('.');
  if (dot < 0) return null;
  return Buffer.from(token.slice(END_USER_TOKEN_PREFIX.length, dot), 'base64url').toString('base64url');
}

type VerifiedToken = { ok: true; grant: EndUserGrant } | { ok: false; reason: string };

/** The grant of a token this deployment signed, spelled as it was signed, and not expired; why not, otherwise. */
export function verifyEndUserToken(secret: string, token: string, now = new Date()): VerifiedToken {
  const invalid = { ok: false, reason: 'Invalid end-user token' } as const;
  const parts = tokenParts(token);
  if (!parts) return invalid;
  const expected = signatureOf(secret, parts.encoded);
  // Constant time, so the signature cannot be guessed a byte at a time.
  if (parts.signature.length !== expected.length || !timingSafeEqual(parts.signature, expected))
    return invalid;
  const payload = parsePayload(parts.payload.toString('utf8'));
  if (!payload) return invalid;
  const [, keyId, orgId, userId, agentIds, exp, memoryNamespaces] = payload;
  if (exp * 1000 <= now.getTime()) return { ok: false, reason: 'Expired end-user token' };
  return {
    ok: true,
    grant: { keyId, orgId, userId, agentIds, memoryNamespaces, expiresAt: new Date(exp * 1000) },
  };
}

/** A signed payload is ours, but its layout is still checked: a version this code does not know is refused. */
function parsePayload(text: string): Payload | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  const fields = value as unknown[];
  if (fields[0] === LEGACY_PAYLOAD_VERSION && fields.length === 6) fields.push([]);
  else if (fields[0] !== PAYLOAD_VERSION || fields.length !== 7) return null;
  const [, keyId, orgId, userId, agentIds, exp, memoryNamespaces] = fields;
  const isText = (item: unknown): item is string => typeof item === 'string';
  const isTextList = (item: unknown): item is string[] => Array.isArray(item) && item.every(isText);
  const agentsOk = agentIds === null || isTextList(agentIds);
  if (!isText(keyId) || !isText(orgId) || !isText(userId) || !agentsOk || !Number.isInteger(exp)) return null;
  if (!isTextList(memoryNamespaces)) return null;
  return fields as Payload;
}
