import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor } from '@app/contracts';
import { ApiKeyRepository, OrganizationRepository } from '@app/persistence';
import { generateKeySecret } from '../api-key-secret';
import { requireOrgName } from './organization-name';
import { storeKey } from './store-key';

/** `keys:create`: a new `sk-svc-` key; the secret is returned here and never again. */
@Injectable()
export class CreateKey {
  constructor(
    private readonly db: DataSource,
    private readonly organizations: OrganizationRepository,
    private readonly keys: ApiKeyRepository,
  ) {}

  async execute(
    actor: AuditActor,
    orgName: string,
    name = '',
  ): Promise<{ id: string; org_id: string; key: string }> {
    const org = await this.organizations.findOrCreateByName(requireOrgName(orgName));
    const secret = generateKeySecret();
    const key = await storeKey(this.db, this.keys, actor, { orgId: org.id, name, secret, kind: 'sk-svc' });
    return { id: key.id, org_id: org.id, key: secret };
  }
}
