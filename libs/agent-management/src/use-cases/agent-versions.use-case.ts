import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  AGENT_VERSION_LISTING_DEFAULT_LIMIT,
  AgentVersionResponse,
  AuditActor,
  cursorRowId,
  ListAgentVersionsQuery,
  NotFoundError,
  Page,
  pageOf,
} from '@app/contracts';
import { AgentRepository, AgentVersionRepository, recordAudit } from '@app/persistence';
import { toAgentVersionResponse } from '../agent.mapper';

const AGENT_NOT_FOUND = 'Agent not found';
const VERSION_NOT_FOUND = 'Agent version not found';

/** GET /agents/{id}/versions and `agents:versions`: an active agent's versions, newest first. */
@Injectable()
export class ListAgentVersions {
  constructor(
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
  ) {}

  async execute(
    orgId: string,
    agentId: string,
    query: ListAgentVersionsQuery,
  ): Promise<Page<AgentVersionResponse>> {
    if (!(await this.agents.findActive(orgId, agentId))) throw new NotFoundError(AGENT_NOT_FOUND);
    const limit = query.limit ?? AGENT_VERSION_LISTING_DEFAULT_LIMIT;
    const rows = await this.versions.list({ orgId }, agentId, {
      beforeId: query.before === undefined ? undefined : cursorRowId(query.before),
      limit,
    });
    return pageOf(rows, limit, (row) => row.id, toAgentVersionResponse);
  }
}

/** GET /agents/{id}/versions/{version} and `agents:version`. */
@Injectable()
export class GetAgentVersion {
  constructor(
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
  ) {}

  async execute(orgId: string, agentId: string, version: number): Promise<AgentVersionResponse> {
    if (!(await this.agents.findActive(orgId, agentId))) throw new NotFoundError(AGENT_NOT_FOUND);
    const found = await this.versions.find({ orgId }, agentId, version);
    if (!found) throw new NotFoundError(VERSION_NOT_FOUND);
    return toAgentVersionResponse(found);
  }
}

/**
 * POST /agents/{id}/versions/{version}/restore and `agents:restore`: the agent takes that version's configuration
 * again, stored as a new version (history is never rewritten), with its audit entry.
 */
@Injectable()
export class RestoreAgentVersion {
  constructor(
    private readonly db: DataSource,
    private readonly agents: AgentRepository,
    private readonly versions: AgentVersionRepository,
  ) {}

  async execute(
    actor: AuditActor,
    orgId: string,
    agentId: string,
    version: number,
  ): Promise<AgentVersionResponse> {
    const scope = { orgId };
    if (!(await this.agents.findActive(orgId, agentId))) throw new NotFoundError(AGENT_NOT_FOUND);
    const restored = await this.db.transaction(async (tx) => {
      if (!(await this.versions.restore(tx, scope, agentId, version))) return null;
      const created = await this.versions.record(tx, scope, agentId, actor, version);
      await recordAudit(tx, {
        orgId,
        actor,
        action: 'agent.restored',
        target: { type: 'agent', id: agentId },
        details: { version: created, restored_from: version },
      });
      return this.versions.find(scope, agentId, created, tx);
    });
    if (!restored) throw new NotFoundError(VERSION_NOT_FOUND);
    return toAgentVersionResponse(restored);
  }
}
