import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull } from 'typeorm';
import { AgentEntity, newId } from '../entities';
import { entityFromJson } from './entity-rows';
import { preparedStatement, runPreparedAsTenant } from './prepared-statement';
import { Db } from './scope';
import { withTenant } from './tenant-scope';

/** Every POST /chat asks it: prepared, without TypeORM's query building. */
const FIND_ACTIVE_AGENT = preparedStatement({
  name: 'agent_find_active',
  text: `SELECT to_jsonb(a) AS agent FROM agents a WHERE a.org_id = $1 AND a.id = $2 AND a.archived_at IS NULL`,
});

type NewAgent = Pick<AgentEntity, 'orgId' | 'name'> &
  Partial<
    Pick<
      AgentEntity,
      | 'instructions'
      | 'description'
      | 'model'
      | 'fallbackModels'
      | 'guardrails'
      | 'modelOptions'
      | 'memoryNamespace'
      | 'tokenBudget'
      | 'tools'
      | 'compaction'
      | 'approvalRequired'
      | 'mcpServers'
    >
  >;

export type AgentChanges = Partial<Omit<NewAgent, 'orgId'>>;

@Injectable()
export class AgentRepository {
  constructor(private readonly db: DataSource) {}

  async create(values: NewAgent, db: Db = this.db.manager): Promise<AgentEntity> {
    return withTenant(db, values, (tx) => {
      const repository = tx.getRepository(AgentEntity);
      return repository.save(
        repository.create({
          id: newId(),
          instructions: '',
          description: '',
          model: 'builtin',
          fallbackModels: [],
          guardrails: null,
          modelOptions: {},
          memoryNamespace: null,
          tokenBudget: null,
          tools: null,
          compaction: null,
          approvalRequired: [],
          mcpServers: [],
          archivedAt: null,
          ...values,
        }),
      );
    });
  }

  /**
   * An agent of the organization that is not archived: the only kind a new thread may use. Inside a transaction
   * when `tx` is given.
   */
  async findActive(orgId: string, id: string, tx?: Db): Promise<AgentEntity | null> {
    if (tx) {
      return withTenant(tx, { orgId }, (scoped) =>
        scoped.getRepository(AgentEntity).findOneBy({ orgId, id, archivedAt: IsNull() }),
      );
    }
    const [row] = await runPreparedAsTenant<{ agent: Record<string, unknown> }>(
      this.db,
      { orgId },
      FIND_ACTIVE_AGENT,
      [orgId, id],
    );
    return row ? entityFromJson(this.db, AgentEntity, row.agent) : null;
  }

  /** Agents by id within the organization, archived ones included (to render Message.agent). */
  findMany(orgId: string, ids: string[], db: Db = this.db.manager): Promise<AgentEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return withTenant(db, { orgId }, (tx) => tx.getRepository(AgentEntity).findBy({ orgId, id: In(ids) }));
  }

  /** Any agent by id, for the worker, which starts from ids its own service stored. */
  // crosses tenants: the worker starts a run from an agent id of whichever organization's reply it holds
  findById(id: string, db: Db = this.db.manager): Promise<AgentEntity | null> {
    return db.getRepository(AgentEntity).findOneBy({ id });
  }

  /** The organization's agents, oldest first; archived ones only when asked (the admin CLI shows them). */
  listByOrg(orgId: string, options: { includeArchived: boolean }): Promise<AgentEntity[]> {
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(AgentEntity).find({
        where: options.includeArchived ? { orgId } : { orgId, archivedAt: IsNull() },
        order: { createdAt: 'ASC' },
      }),
    );
  }

  /** Changes an active agent of the organization; null when there is none. */
  async update(
    orgId: string,
    id: string,
    values: AgentChanges,
    db: Db = this.db.manager,
  ): Promise<AgentEntity | null> {
    return withTenant(db, { orgId }, async (tx) => {
      const repository = tx.getRepository(AgentEntity);
      const result = await repository.update({ orgId, id, archivedAt: IsNull() }, values);
      return result.affected ? repository.findOneBy({ orgId, id }) : null;
    });
  }

  /** Archives an active agent of the organization; null when there is none. */
  async archive(orgId: string, id: string, db: Db = this.db.manager): Promise<AgentEntity | null> {
    return withTenant(db, { orgId }, async (tx) => {
      const repository = tx.getRepository(AgentEntity);
      const result = await repository.update({ orgId, id, archivedAt: IsNull() }, { archivedAt: new Date() });
      return result.affected ? repository.findOneBy({ orgId, id }) : null;
    });
  }
}
