import { Injectable } from '@nestjs/common';
import { NotFoundError } from '@app/contracts';
import { ApiKeyRepository, OrganizationRepository } from '@app/persistence';
import { requireOrgName } from './organization-name';

/** `keys:list`: the organization's keys as the admin sees them, never the hash, which stays in the database. */
@Injectable()
export class ListKeys {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly keys: ApiKeyRepository,
  ) {}

  async execute(
    orgName: string,
  ): Promise<{ keys: { id: string; name: string; created_at: string; revoked: boolean }[] }> {
    const org = await this.organizations.findByName(requireOrgName(orgName));
    if (!org) throw new NotFoundError('Organization not found');
    const keys = await this.keys.listByOrg(org.id);
    return {
      keys: keys.map((key) => ({
        id: key.id,
        name: key.name,
        created_at: key.createdAt.toISOString(),
        revoked: key.revokedAt !== null,
      })),
    };
  }
}
