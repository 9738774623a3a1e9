import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, NotFoundError } from '@app/contracts';
import { AgentRepository, recordAudit } from '@app/persistence';

/** DELETE /agents/{id} and `agents:archive`: its threads keep their messages (shown as agent "ARCHIVED"). */
@Injectable()
export class ArchiveAgent {
  constructor(
    private readonly db: DataSource,
    private readonly agents: AgentRepository,
  ) {}

  async execute(actor: AuditActor, orgId: string, id: string): Promise<{ id: string; archived: true }> {
    const agent = await this.db.transaction(async (tx) => {
      const agent = await this.agents.archive(orgId, id, tx);
      if (!agent) throw new NotFoundError('Agent not found');
      await recordAudit(tx, {
        orgId,
        actor,
        action: 'agent.deleted',
        target: { type: 'agent', id },
        details: { name: agent.name },
      });
      return agent;
    });
    return { id: agent.id, archived: true };
  }
}
