import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor } from '@app/contracts';
import { ApiKeyRepository, OrganizationRepository, recordAudit } from '@app/persistence';
import { generateKeySecret, hashKeySecret } from '../api-key-secret';
import { requireOrgName } from './organization-name';

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
    const key = await this.db.transaction(async (tx) => {
      const key = await this.keys.create(
        { orgId: org.id, name, keyHash: hashKeySecret(secret), kind: 'sk-svc' },
        tx,
      );
      await recordAudit(tx, {
        orgId: org.id,
        actor,
        action: 'key.created',
        target: { type: 'key', id: key.id },
        details: { name, kind: key.kind },
      });
      return key;
    });
    return { id: key.id, org_id: org.id, key: secret };
  }
}
