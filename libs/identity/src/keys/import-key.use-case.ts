import { Injectable } from '@nestjs/common';
import { AuditActor, InvalidInputError } from '@app/contracts';
import { legacyKeyProblem } from '../api-key-secret';
import { KeyStore } from './store-key';

/** `keys:import`: registers a key made before the prefix existed (API-SPEC §5.3). */
@Injectable()
export class ImportKey {
  constructor(private readonly keys: KeyStore) {}

  async execute(
    actor: AuditActor,
    orgName: string,
    secret: string,
    name = '',
  ): Promise<{ id: string; org_id: string }> {
    const problem = legacyKeyProblem(secret);
    if (problem) throw new InvalidInputError([{ loc: ['key'], msg: problem, type: 'value_error' }]);
    const key = await this.keys.store(actor, orgName, { name, secret, kind: 'legacy' });
    return { id: key.id, org_id: key.orgId };
  }
}
