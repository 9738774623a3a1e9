import { Get, Query } from '@nestjs/common';
import { ApiOperation } from '@nestjs/swagger';
import { AuditEventResponse, ListAuditEventsQuery, Page } from '@app/contracts';
import { Caller } from '@app/identity';
import { CurrentCaller } from '../auth/current-caller.decorator';
import { ServiceApiController } from '../auth/service-api-controller.decorator';
import { PagedListing } from '../http/paged-listing';
import { ListAuditEvents } from './list-audit-events.use-case';

/** The audit log (CONTRACTS §20): read-only here, as everywhere; service keys only, never an end-user token. */
@ServiceApiController('audit', 'audit-events')
export class AuditEventsController {
  constructor(private readonly listAuditEvents: ListAuditEvents) {}

  @Get()
  @ApiOperation({
    summary: "List the organization's audit log",
    description:
      'Newest first: keys created and revoked, agents, webhooks, budgets, skill scopes, erasures and retention of ' +
      "the organization, and the operator's changes to the MCP catalogue (deployment-wide). Each entry was written " +
      'in the transaction of the change it records; none is ever changed or deleted. A full page carries an ' +
      '`x-next-cursor` header: pass it as `before` for the next page.',
  })
  @PagedListing(AuditEventResponse)
  list(
    @CurrentCaller() caller: Caller,
    @Query() query: ListAuditEventsQuery,
  ): Promise<Page<AuditEventResponse>> {
    return this.listAuditEvents.execute(caller, query);
  }
}
