import { Injectable } from '@nestjs/common';
import { ApiKeyRepository, OrganizationRepository } from '@app/persistence';
import { generateKeySecret, hashKeySecret } from '../api-key-secret';
import { requireOrgName } from './organization-name';

/** `keys:create`: a new `sk-svc-` key; the secret is returned here and never again. */
@Injectable()
export class CreateKey {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly keys: ApiKeyRepository,
  ) {}

  async execute(orgName: string, name = ''): Promise<{ id: string; org_id: string; key: string }> {
    const org = await this.organizations.findOrCreateByName(requireOrgName(orgName));
    const secret = generateKeySecret();
    const key = await this.keys.create({
      orgId: org.id,
      name,
      keyHash: hashKeySecret(secret),
      kind: 'sk-svc',
    });
    return { id: key.id, org_id: org.id, key: secret };
  }
}
