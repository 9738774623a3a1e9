import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signatures of the embedded storage host: upload policies in the shape of S3's browser POST (a base64 JSON
 * policy and its HMAC) and download addresses with an expiry. The gateway signs, the host verifies, both with
 * STORAGE_SIGNING_SECRET.
 */
export const LOCAL_ALGORITHM = 'PARLEY-HMAC-SHA256';

/** An S3 POST policy condition: an exact field match, or a range on the body's length. */
export type PolicyCondition = Record<string, string> | ['content-length-range', number, number];

export interface UploadPolicy {
  expiration: string;
  conditions: PolicyCondition[];
}

const hmac = (secret: string, text: string): string =>
  createHmac('sha256', secret).update(text).digest('hex');

export function signPolicy(secret: string, policy: UploadPolicy): { policy: string; signature: string } {
  const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
  return { policy: encoded, signature: hmac(secret, encoded) };
}

/** True when `signature` is the HMAC of `text`, compared in constant time. */
export function verifySignature(secret: string, text: string, signature: string): boolean {
  const expected = Buffer.from(hmac(secret, text), 'hex');
  const given = Buffer.from(/^[0-9a-f]{64}$/.test(signature) ? signature : '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a download address grants: one object of a recorded size, served under a name and type. */
interface DownloadGrant {
  key: string;
  expires: number;
  name: string;
  type: string;
  /** The size the service recorded: the host serves exactly these bytes or refuses. */
  size: number;
}

/** The text a download address signs: what is served, and until when. */
export const downloadSigningText = (grant: DownloadGrant): string =>
  ['GET', grant.key, String(grant.expires), grant.name, grant.type, String(grant.size)].join('\n');

export const signDownload = (secret: string, grant: DownloadGrant) =>
  hmac(secret, downloadSigningText(grant));
