import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditActor, InvalidInputError } from '@app/contracts';
import { ApiKeyRepository, OrganizationRepository } from '@app/persistence';
import { legacyKeyProblem } from '../api-key-secret';
import { requireOrgName } from './organization-name';
import { storeKey } from './store-key';

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
    const key = await storeKey(this.db, this.keys, actor, { orgId: org.id, name, secret, kind: 'legacy' });
    return { id: key.id, org_id: org.id };
  }
}
