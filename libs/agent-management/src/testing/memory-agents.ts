import { randomUUID } from 'node:crypto';
import { DataSource, EntityManager } from 'typeorm';
import { AuditActor, CreateAgentDto } from '@app/contracts';
import {
  AgentChanges,
  AgentEntity,
  AgentRepository,
  AgentVersion,
  AgentVersionRepository,
  McpCatalogueEntryEntity,
  McpCatalogueRepository,
  Scope,
} from '@app/persistence';
import { McpServers } from '../mcp-servers';
import { CreateAgent } from '../use-cases/create-agent.use-case';

export const ORG = 'org-1';
export const ACTOR: AuditActor = { type: 'key', id: 'key-1' };

/** The fields of an agent that no version holds (AGENT_BOOKKEEPING_COLUMNS, by property). */
const BOOKKEEPING = new Set<keyof AgentEntity>(['id', 'orgId', 'tokensUsed', 'archivedAt', 'createdAt']);

/** One audit entry as recordAudit wrote it. */
interface RecordedAudit {
  orgId: string | null;
  action: string;
  target: string;
  details: Record<string, unknown>;
}

const copy = (agent: AgentEntity): AgentEntity =>
  Object.assign(new AgentEntity(), structuredClone({ ...agent }));

/**
 * Agents, their versions, the MCP catalogue and the audit log in memory, for the agent-management use cases'
 * unit specs: the repositories do what their SQL does (only active agents change, versions number on from the
 * last, registering a name again replaces its entry), and a transaction that throws leaves all as they were.
 */
export class MemoryAgents {
  private agents = new Map<string, AgentEntity>();
  private versions: AgentVersion[] = [];
  catalogue = new Map<string, McpCatalogueEntryEntity>();
  audits: RecordedAudit[] = [];

  /**
   * An agent made as POST /agents makes it (CreateAgent, without MCP servers), with its version 1. Its audit
   * entry is not kept: a spec looks at what the use case it runs records.
   */
  async create(input: CreateAgentDto, orgId = ORG): Promise<AgentEntity> {
    const noServers = { seal: () => Promise.resolve([]) } as unknown as McpServers;
    const create = new CreateAgent(this.db, this.agentRepository, this.versionRepository, noServers);
    const { id } = await create.execute(ACTOR, orgId, input);
    this.audits = [];
    return copy(this.agents.get(id)!);
  }

  agent(id: string): AgentEntity | undefined {
    return this.agents.get(id);
  }

  /** The agent's version numbers, oldest first. */
  versionNumbers(agentId: string): number[] {
    return this.versionsOf(agentId).map((version) => version.version);
  }

  readonly db = {
    transaction: async <T>(work: (tx: EntityManager) => Promise<T>): Promise<T> => {
      const agents = new Map([...this.agents].map(([id, agent]) => [id, copy(agent)]));
      const versions = [...this.versions];
      const catalogue = new Map(this.catalogue);
      const audits = [...this.audits];
      try {
        return await work(this.tx);
      } catch (error) {
        this.agents = agents;
        this.versions = versions;
        this.catalogue = catalogue;
        this.audits = audits;
        throw error;
      }
    },
  } as unknown as DataSource;

  /** The transaction: only recordAudit writes through it directly. */
  private readonly tx = {
    query: (_sql: string, params: unknown[]) => {
      const [, , orgId, , , action, targetType, targetId, details] = params as (string | null)[];
      this.audits.push({
        orgId,
        action: action!,
        target: `${targetType} ${targetId}`,
        details: JSON.parse(details!) as Record<string, unknown>,
      });
      return Promise.resolve([]);
    },
  } as unknown as EntityManager;

  readonly agentRepository = {
    create: (values: Pick<AgentEntity, 'orgId' | 'name'> & Partial<AgentEntity>) => {
      const agent = Object.assign(new AgentEntity(), {
        id: randomUUID(),
        tokensUsed: 0,
        archivedAt: null,
        createdAt: new Date(),
        ...structuredClone(values),
      });
      this.agents.set(agent.id, agent);
      return Promise.resolve(copy(agent));
    },
    findActive: (orgId: string, id: string) => {
      const agent = this.active(orgId, id);
      return Promise.resolve(agent ? copy(agent) : null);
    },
    update: (orgId: string, id: string, changes: AgentChanges) => {
      const agent = this.active(orgId, id);
      if (agent) Object.assign(agent, structuredClone(changes));
      return Promise.resolve(agent ? copy(agent) : null);
    },
    archive: (orgId: string, id: string) => {
      const agent = this.active(orgId, id);
      if (agent) agent.archivedAt = new Date();
      return Promise.resolve(agent ? copy(agent) : null);
    },
  } as unknown as AgentRepository;

  readonly versionRepository = {
    record: (_tx: EntityManager, _scope: Scope, agentId: string, actor: AuditActor, restoredFrom = null) =>
      Promise.resolve(this.storeVersion(agentId, actor, restoredFrom)),
    restore: (_tx: EntityManager, scope: Scope, agentId: string, version: number) => {
      const agent = this.active(scope.orgId, agentId);
      const stored = this.versionsOf(agentId).find((candidate) => candidate.version === version);
      if (!agent || !stored) return Promise.resolve(false);
      for (const [field, value] of Object.entries(stored.agent)) {
        if (!BOOKKEEPING.has(field as keyof AgentEntity))
          Object.assign(agent, { [field]: structuredClone(value) });
      }
      return Promise.resolve(true);
    },
    list: (scope: Scope, agentId: string, page: { beforeId?: string; limit: number }) => {
      const newestFirst = this.versionsOf(agentId, scope.orgId).reverse();
      const before = newestFirst.find((version) => version.id === page.beforeId)?.version ?? Infinity;
      return Promise.resolve(newestFirst.filter((version) => version.version < before).slice(0, page.limit));
    },
    find: (scope: Scope, agentId: string, version: number) =>
      Promise.resolve(
        this.versionsOf(agentId, scope.orgId).find((candidate) => candidate.version === version) ?? null,
      ),
  } as unknown as AgentVersionRepository;

  readonly catalogueRepository = {
    register: (registration: Pick<McpCatalogueEntryEntity, 'name' | 'command' | 'args' | 'envAllow'>) => {
      const now = new Date();
      const entry = Object.assign(new McpCatalogueEntryEntity(), {
        ...registration,
        confirmed: true,
        createdAt: this.catalogue.get(registration.name)?.createdAt ?? now,
        updatedAt: now,
      });
      this.catalogue.set(entry.name, entry);
      return Promise.resolve(entry);
    },
    remove: (name: string) => Promise.resolve(this.catalogue.delete(name)),
    findByNames: (names: string[]) =>
      Promise.resolve(
        new Map(names.flatMap((name) => this.catalogue.get(name) ?? []).map((entry) => [entry.name, entry])),
      ),
  } as unknown as McpCatalogueRepository;

  private active(orgId: string, id: string): AgentEntity | undefined {
    const agent = this.agents.get(id);
    return agent && agent.orgId === orgId && agent.archivedAt === null ? agent : undefined;
  }

  private versionsOf(agentId: string, orgId = ORG): AgentVersion[] {
    return this.versions.filter(
      (version) => version.agentId === agentId && this.agents.get(agentId)?.orgId === orgId,
    );
  }

  private storeVersion(agentId: string, actor: AuditActor, restoredFrom: number | null): number {
    const numbers = this.versions
      .filter((stored) => stored.agentId === agentId)
      .map((stored) => stored.version);
    const version = Math.max(0, ...numbers) + 1;
    this.versions.push({
      id: randomUUID(),
      agentId,
      version,
      agent: copy(this.agents.get(agentId)!),
      actor,
      restoredFrom,
      createdAt: new Date(),
    });
    return version;
  }
}
