import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor } from '@app/contracts';
import { ApiKeyEntity, ApiKeyRepository, OrganizationRepository, recordAudit } from '@app/persistence';
import { hashKeySecret } from '../api-key-secret';
import { requireOrgName } from './organization-name';

/** A key to store: its secret is hashed here, and only the hash is kept. */
interface NewKey {
  name: string;
  secret: string;
  kind: ApiKeyEntity['kind'];
}

/**
 * Stores a key of the organization named `orgName` (made if new) and its `key.created` audit event in one
 * transaction. A created key and an imported one are the same new way in: the same action, the key's kind
 * telling them apart.
 */
@Injectable()
export class KeyStore {
  constructor(
    private readonly db: DataSource,
    private readonly organizations: OrganizationRepository,
    private readonly keys: ApiKeyRepository,
  ) {}

  async store(actor: AuditActor, orgName: string, { name, secret, kind }: NewKey): Promise<ApiKeyEntity> {
    const org = await this.organizations.findOrCreateByName(requireOrgName(orgName));
    return this.db.transaction(async (tx) => {
      const key = await this.keys.create({ orgId: org.id, name, keyHash: hashKeySecret(secret), kind }, tx);
      await recordAudit(tx, {
        orgId: org.id,
        actor,
        action: 'key.created',
        target: { type: 'key', id: key.id },
        details: { name, kind: key.kind },
      });
      return key;
    });
  }
}
