import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, InvalidInputError } from '@app/contracts';
import { ApiKeyRepository, OrganizationRepository, recordAudit } from '@app/persistence';
import { hashKeySecret, legacyKeyProblem } from '../api-key-secret';
import { requireOrgName } from './organization-name';

/** `keys:import`: registers a key made before the prefix existed (API-SPEC §5.3). */
@Injectable()
export class ImportKey {
  constructor(
    private readonly db: DataSource,
    private readonly organizations: OrganizationRepository,
    private readonly keys: ApiKeyRepository,
  ) {}

  async execute(
    actor: AuditActor,
    orgName: string,
    secret: string,
    name = '',
  ): Promise<{ id: string; org_id: string }> {
    const problem = legacyKeyProblem(secret);
    if (problem) throw new InvalidInputError([{ loc: ['key'], msg: problem, type: 'value_error' }]);
    const org = await this.organizations.findOrCreateByName(requireOrgName(orgName));
    const key = await this.db.transaction(async (tx) => {
      const key = await this.keys.create(
        { orgId: org.id, name, keyHash: hashKeySecret(secret), kind: 'legacy' },
        tx,
      );
      // An imported key is a new way in like a created one: the same action, its kind telling them apart.
      await recordAudit(tx, {
        orgId: org.id,
        actor,
        action: 'key.created',
        target: { type: 'key', id: key.id },
        details: { name, kind: key.kind },
      });
      return key;
    });
    return { id: key.id, org_id: org.id };
  }
}
