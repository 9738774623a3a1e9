import { Injectable } from '@nestjs/common';
import { AgentResponse, NotFoundError } from '@app/contracts';
import { AgentRepository } from '@app/persistence';
import { toAgentResponse } from '../agent.mapper';

/** GET /agents/{id}: an active agent of the caller's organization; any other id is 404. */
@Injectable()
export class GetAgent {
  constructor(private readonly agents: AgentRepository) {}

  async execute(orgId: string, id: string): Promise<AgentResponse> {
    const agent = await this.agents.findActive(orgId, id);
    if (!agent) throw new NotFoundError('Agent not found');
    return toAgentResponse(agent);
  }
}
