import { Injectable } from '@nestjs/common';
import { AgentResponse } from '@app/contracts';
import { AgentRepository } from '@app/persistence';
import { toAgentResponse } from '../agent.mapper';

/** GET /agents (active agents) and `agents:list` (archived ones too, marked). */
@Injectable()
export class ListAgents {
  constructor(private readonly agents: AgentRepository) {}

  async execute(orgId: string, options = { includeArchived: false }): Promise<{ agents: AgentResponse[] }> {
    return { agents: (await this.agents.listByOrg(orgId, options)).map(toAgentResponse) };
  }
}
