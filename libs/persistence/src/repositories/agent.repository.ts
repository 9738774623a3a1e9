import { Injectable } from '@nestjs/common';
import { DataSource, In, IsNull } from 'typeorm';
import { AgentEntity, newId } from '../entities';
import { Db } from './scope';

export type NewAgent = Pick<AgentEntity, 'orgId' | 'name'> &
  Partial<
    Pick<
      AgentEntity,
      'instructions' | 'model' | 'modelOptions' | 'memoryNamespace' | 'tokenBudget' | 'tools' | 'mcpServers'
    >
  >;

@Injectable()
export class AgentRepository {
  constructor(private readonly db: DataSource) {}

  async create(values: NewAgent): Promise<AgentEntity> {
    const repository = this.db.getRepository(AgentEntity);
    return repository.save(
      repository.create({
        id: newId(),
        instructions: '',
        model: 'builtin',
        modelOptions: {},
        memoryNamespace: null,
        tokenBudget: null,
        tools: null,
        mcpServers: [],
        archivedAt: null,
        ...values,
      }),
    );
  }

  /** An agent of the organization that is not archived: the only kind a new thread may use. */
  findActive(orgId: string, id: string, db: Db = this.db.manager): Promise<AgentEntity | null> {
    return db.getRepository(AgentEntity).findOneBy({ orgId, id, archivedAt: IsNull() });
  }

  /** Agents by id within the organization, archived ones included (to render Message.agent). */
  findMany(orgId: string, ids: string[], db: Db = this.db.manager): Promise<AgentEntity[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return db.getRepository(AgentEntity).findBy({ orgId, id: In(ids) });
  }

  /** Any agent by id, for the worker, which starts from ids its own service stored. */
  findById(id: string, db: Db = this.db.manager): Promise<AgentEntity | null> {
    return db.getRepository(AgentEntity).findOneBy({ id });
  }

  listByOrg(orgId: string): Promise<AgentEntity[]> {
    return this.db.getRepository(AgentEntity).find({ where: { orgId }, order: { createdAt: 'ASC' } });
  }

  async archive(id: string): Promise<AgentEntity | null> {
    const repository = this.db.getRepository(AgentEntity);
    await repository.update({ id, archivedAt: IsNull() }, { archivedAt: new Date() });
    return repository.findOneBy({ id });
  }
}
