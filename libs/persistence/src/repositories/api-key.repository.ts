import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ApiKeyEntity, newId } from '../entities';

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly db: DataSource) {}

  async create(values: Pick<ApiKeyEntity, 'orgId' | 'name' | 'keyHash' | 'kind'>): Promise<ApiKeyEntity> {
    const repository = this.db.getRepository(ApiKeyEntity);
    return repository.save(repository.create({ id: newId(), revokedAt: null, ...values }));
  }

  /** The key with this id, revoked or not. */
  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ id });
  }

  /** The live (not revoked) key with this hash. */
  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ keyHash, revokedAt: IsNull() });
  }

  /** Every key of the organization, revoked ones included, oldest first (admin CLI `keys:list`). */
  listByOrg(orgId: string): Promise<ApiKeyEntity[]> {
    return this.db
      .getRepository(ApiKeyEntity)
      .find({ where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** Marks the key revoked; returns it, or null when there is no such key. */
  async revoke(id: string): Promise<ApiKeyEntity | null> {
    const repository = this.db.getRepository(ApiKeyEntity);
    await repository.update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
    return repository.findOneBy({ id });
  }
}
