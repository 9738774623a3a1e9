import { createHash } from 'node:crypto';

/**
 * How a record that must outlive an end user's erasure (its receipt, an audit entry) names the user: hex SHA-256
 * of `<organization id>:<user id>`. The same user in the same organization always hashes alike, so a receipt can
 * be matched to a later request about that user; the id itself is stored nowhere.
 */
export function endUserHash(orgId: string, userId: string): string {
  return createHash('sha256').update(`${orgId}:${userId}`, 'utf8').digest('hex');
}
