import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { newId, OrganizationEntity } from '../entities';

@Injectable()
export class OrganizationRepository {
  constructor(private readonly db: DataSource) {}

  /** The organization of that name, created on first use (admin CLI `--org`). */
  // crosses tenants: the admin CLI names organizations, before any is known
  async findOrCreateByName(name: string): Promise<OrganizationEntity> {
    await this.db
      .createQueryBuilder()
      .insert()
      .into(OrganizationEntity)
      .values({ id: newId(), name })
      .orIgnore()
      .execute();
    return this.db.getRepository(OrganizationEntity).findOneByOrFail({ name });
  }

  /** The organization of that name, or null: a lookup that must not create one. */
  // crosses tenants: the admin CLI names organizations, before any is known
  findByName(name: string): Promise<OrganizationEntity | null> {
    return this.db.getRepository(OrganizationEntity).findOneBy({ name });
  }

  // crosses tenants: the admin CLI names organizations, before any is known
  findById(id: string): Promise<OrganizationEntity | null> {
    return this.db.getRepository(OrganizationEntity).findOneBy({ id });
  }
}
