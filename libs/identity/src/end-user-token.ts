import { createHmac, timingSafeEqual } from 'node:crypto';

/** The prefix of every end-user token (CONTRACTS §17), so the guard tells one from a key at a glance. */
export const END_USER_TOKEN_PREFIX = 'eut_';

/** Version of the signed payload's layout: a token of another version is refused, never misread. */
const PAYLOAD_VERSION = 1;

/** What an end-user token grants: one end user of the minting key's organization, maybe only some agents. */
export interface EndUserGrant {
  /** The key that minted it: revoking that key revokes the token. */
  keyId: string;
  orgId: string;
  userId: string;
  /** The agents the token may chat with; null: every agent of the organization. */
  agentIds: string[] | null;
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
];

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
  ];
  const encoded = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${END_USER_TOKEN_PREFIX}${encoded}.${signatureOf(secret, encoded).toString('base64url')}`;
}

export type VerifiedToken = { ok: true; grant: EndUserGrant } | { ok: false; reason: string };

/** The grant of a token this deployment signed and that has not expired; why not, otherwise. */
export function verifyEndUserToken(secret: string, token: string, now = new Date()): VerifiedToken {
  const invalid = { ok: false, reason: 'Invalid end-user token' } as const;
  if (!token.startsWith(END_USER_TOKEN_PREFIX)) return invalid;
  const [encoded, signature, ...rest] = token.slice(END_USER_TOKEN_PREFIX.length).split('.');
  if (!encoded || !signature || rest.length > 0) return invalid;
  const expected = signatureOf(secret, encoded);
  const given = Buffer.from(signature, 'base64url');
  // Constant time, so the signature cannot be guessed a byte at a time.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return invalid;
  const payload = parsePayload(Buffer.from(encoded, 'base64url').toString('utf8'));
  if (!payload) return invalid;
  const [, keyId, orgId, userId, agentIds, exp] = payload;
  if (exp * 1000 <= now.getTime()) return { ok: false, reason: 'Expired end-user token' };
  return { ok: true, grant: { keyId, orgId, userId, agentIds, expiresAt: new Date(exp * 1000) } };
}

/** A signed payload is ours, but its layout is still checked: a version this code does not know is refused. */
function parsePayload(text: string): Payload | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 6 || value[0] !== PAYLOAD_VERSION) return null;
  const [, keyId, orgId, userId, agentIds, exp] = value as unknown[];
  const isText = (item: unknown): item is string => typeof item === 'string';
  const agentsOk = agentIds === null || (Array.isArray(agentIds) && agentIds.every(isText));
  if (!isText(keyId) || !isText(orgId) || !isText(userId) || !agentsOk || !Number.isInteger(exp)) return null;
  return value as Payload;
}
