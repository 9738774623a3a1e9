import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { AgentRepository } from '@app/persistence';

/** DELETE /agents/{id} and `agents:archive`: its threads keep their messages (shown as agent "ARCHIVED"). */
@Injectable()
export class ArchiveAgent {
  constructor(private readonly agents: AgentRepository) {}

  async execute(orgId: string, id: string): Promise<{ id: string; archived: true }> {
    const agent = await this.agents.archive(orgId, id);
    if (!agent) throw new NotFoundError('Agent not found');
    return { id: agent.id, archived: true };
  }
}
