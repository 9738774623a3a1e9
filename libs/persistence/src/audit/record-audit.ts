import { newId } from '../entities';
import { Db } from '../repositories/scope';
import { AuditAction, AuditActor, AuditTargetType } from '@app/contracts';

export interface AuditEntry {
  /** The organization the change belongs to; null for a deployment-wide change (the MCP catalogue). */
  orgId: string | null;
  actor: AuditActor;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  /** What changed, as JSON: names and settings, never key material, webhook secrets or an end user's id. */
  details?: Record<string, unknown>;
}

/**
 * Appends one entry to the audit log through `db`, the transaction of the change it records: the entry exists
 * exactly when the change committed. Called with the data source's own manager it would commit alone, so callers
 * always pass the `tx` of their `transaction(...)`.
 */
export async function recordAudit(db: Db, entry: AuditEntry): Promise<void> {
  const id = newId();
  await db.query(
    `INSERT INTO audit_events (id, at, org_id, actor_type, actor_id, action, target_type, target_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
    [
      id,
      timeOfId(id),
      entry.orgId,
      entry.actor.type,
      entry.actor.id,
      entry.action,
      entry.target.type,
      entry.target.id,
      JSON.stringify(entry.details ?? {}),
    ],
  );
}

/**
 * The instant a uuid v7 was made (its first 48 bits, milliseconds since the epoch): an entry's `at`, so that the
 * log's order by id (newest first) is its order by time too. The transaction's start, `now()`, is not: a change
 * whose transaction began earlier can be recorded after another's.
 */
function timeOfId(id: string): Date {
  return new Date(parseInt(id.replace(/-/g, '').slice(0, 12), 16));
}
