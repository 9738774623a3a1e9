import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { PutRetentionDto, RetentionResponse } from '@app/contracts';
import { auditActorOf, Caller } from '@app/identity';
import { recordAudit, RetentionRepository } from '@app/persistence';

/** GET and PUT /settings/retention (CONTRACTS §20); the workers' daily run applies it. */
@Injectable()
export class RetentionSettings {
  constructor(
    private readonly db: DataSource,
    private readonly retention: RetentionRepository,
  ) {}

  async get(caller: Caller): Promise<RetentionResponse> {
    return { thread_days: await this.retention.retentionDays(caller.orgId) };
  }

  async put(caller: Caller, body: PutRetentionDto): Promise<RetentionResponse> {
    await this.db.transaction(async (tx) => {
      await this.retention.setRetentionDays(tx, caller.orgId, body.thread_days);
      await recordAudit(tx, {
        orgId: caller.orgId,
        actor: auditActorOf(caller),
        action: 'retention.updated',
        target: { type: 'organization', id: caller.orgId },
        details: { thread_days: body.thread_days },
      });
    });
    return { thread_days: body.thread_days };
  }
}
