import { Module } from '@nestjs/common';
import { AuditEventsController } from './audit-events.controller';
import { ListAuditEvents } from './list-audit-events.use-case';

/** GET /audit-events. The entries are written by the use cases of the changes they record (recordAudit). */
@Module({
  controllers: [AuditEventsController],
  providers: [ListAuditEvents],
})
export class AuditModule {}
