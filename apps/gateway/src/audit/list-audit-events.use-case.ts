import { Injectable } from '@nestjs/common';
import {
  AUDIT_LISTING_DEFAULT_LIMIT,
  AuditEventResponse,
  cursorRowId,
  ListAuditEventsQuery,
  Page,
  pageOf,
} from '@app/contracts';
import { Caller } from '@app/identity';
import { AuditEvent, AuditEventRepository } from '@app/persistence';

const toResponse = (event: AuditEvent): AuditEventResponse => ({
  id: event.id,
  at: event.at.toISOString(),
  actor: event.actor,
  action: event.action,
  target: event.target,
  details: event.details,
});

/** GET /audit-events: the organization's audit log and the deployment's own changes, newest first. */
@Injectable()
export class ListAuditEvents {
  constructor(private readonly events: AuditEventRepository) {}

  async execute(caller: Caller, query: ListAuditEventsQuery): Promise<Page<AuditEventResponse>> {
    const limit = query.limit ?? AUDIT_LISTING_DEFAULT_LIMIT;
    const rows = await this.events.list(caller.orgId, {
      beforeId: query.before === undefined ? undefined : cursorRowId(query.before),
      limit,
    });
    return pageOf(rows, limit, (row) => row.id, toResponse);
  }
}
