import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditAction, AuditActor, AuditTargetType } from '@app/contracts';

/** An audit entry as stored. */
export interface AuditEvent {
  id: string;
  at: Date;
  actor: AuditActor;
  action: AuditAction;
  target: { type: AuditTargetType; id: string };
  details: Record<string, unknown>;
}

interface AuditEventRow {
  id: string;
  at: Date;
  actor_type: AuditActor['type'];
  actor_id: string;
  action: AuditAction;
  target_type: AuditTargetType;
  target_id: string;
  details: Record<string, unknown>;
}

const toAuditEvent = (row: AuditEventRow): AuditEvent => ({
  id: row.id,
  at: row.at,
  actor: { type: row.actor_type, id: row.actor_id },
  action: row.action,
  target: { type: row.target_type, id: row.target_id },
  details: row.details,
});

/** Reads the audit log; it is written only by `recordAudit`, inside the transaction of each change. */
@Injectable()
export class AuditEventRepository {
  constructor(private readonly db: DataSource) {}

  /**
   * The organization's entries and the deployment-wide ones, newest first (ids are uuid v7), before the entry
   * `beforeId` when given. Two index scans of (org_id, id DESC), merged: the `OR org_id IS NULL` of one scan would
   * read every entry of the organization.
   */
  async list(orgId: string, page: { beforeId?: string; limit: number }): Promise<AuditEvent[]> {
    const rows: AuditEventRow[] = await this.db.query(
      `SELECT * FROM (
         (SELECT * FROM audit_events WHERE org_id = $1 AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3)
         UNION ALL
         (SELECT * FROM audit_events WHERE org_id IS NULL AND ($2::uuid IS NULL OR id < $2) ORDER BY id DESC LIMIT $3)
       ) e ORDER BY id DESC LIMIT $3`,
      [orgId, page.beforeId ?? null, page.limit],
    );
    return rows.map(toAuditEvent);
  }
}
