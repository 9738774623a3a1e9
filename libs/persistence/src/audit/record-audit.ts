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
  await db.query(
    `INSERT INTO audit_events (id, org_id, actor_type, actor_id, action, target_type, target_id, details)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
    [
      newId(),
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
