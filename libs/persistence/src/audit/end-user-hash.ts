import { createHash } from 'node:crypto';

/**
 * How the audit log (and the erasure receipt) names an end user: SHA-256, in hex, of a versioned label, the
 * organization id and the user id, one per line. The organization id is a uuid (no line break), so the input is
 * unambiguous, and the same user id in two organizations hashes apart. A pure function of its inputs, so an
 * organization can check an entry against a user id it knows, while the log never holds the id itself and an
 * erasure leaves it whole. (A key kept in PostgreSQL would add nothing: whoever reads the log's rows reads the key.)
 */
export function endUserHash(organizationId: string, userId: string): string {
  return createHash('sha256')
    .update(`parley.end-user.v1\n${organizationId}\n${userId}`, 'utf8')
    .digest('hex');
}
