import { Injectable } from '@nestjs/common';
import { DataSource, IsNull } from 'typeorm';
import { ApiKeyEntity, newId } from '../entities';
import { Db } from './scope';
import { withTenant } from './tenant-scope';

@Injectable()
export class ApiKeyRepository {
  constructor(private readonly db: DataSource) {}

  async create(
    values: Pick<ApiKeyEntity, 'orgId' | 'name' | 'keyHash' | 'kind'>,
    db: Db = this.db.manager,
  ): Promise<ApiKeyEntity> {
    return withTenant(db, values, (tx) => {
      const repository = tx.getRepository(ApiKeyEntity);
      return repository.save(repository.create({ id: newId(), revokedAt: null, ...values }));
    });
  }

  /** The key with this id, revoked or not. */
  // crosses tenants: the admin CLI and the revocation channel name a key by its id alone
  findById(id: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ id });
  }

  /** The live (not revoked) key with this hash. */
  // crosses tenants: authentication looks the key up before its organization is known
  findActiveByHash(keyHash: string): Promise<ApiKeyEntity | null> {
    return this.db.getRepository(ApiKeyEntity).findOneBy({ keyHash, revokedAt: IsNull() });
  }

  /** Every key of the organization, revoked ones included, oldest first (admin CLI `keys:list`). */
  listByOrg(orgId: string): Promise<ApiKeyEntity[]> {
    return withTenant(this.db, { orgId }, (tx) =>
      tx.getRepository(ApiKeyEntity).find({ where: { orgId }, order: { createdAt: 'ASC', id: 'ASC' } }),
    );
  }

  /**
   * Marks the key revoked; returns it, with `revokedNow` false when it already was, or null when there is no such
   * key.
   */
  // crosses tenants: the admin CLI revokes a key by its id alone
  async revoke(
    id: string,
    db: Db = this.db.manager,
  ): Promise<{ key: ApiKeyEntity; revokedNow: boolean } | null> {
    const repository = db.getRepository(ApiKeyEntity);
    const result = await repository.update({ id, revokedAt: IsNull() }, { revokedAt: new Date() });
    const key = await repository.findOneBy({ id });
    return key ? { key, revokedNow: (result.affected ?? 0) > 0 } : null;
  }
}
