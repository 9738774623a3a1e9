import { Injectable } from '@nestjs/common';
import { AuditActor } from '@app/contracts';
import { generateKeySecret } from '../api-key-secret';
import { KeyStore } from './store-key';

/** `keys:create`: a new `sk-svc-` key; the secret is returned here and never again. */
@Injectable()
export class CreateKey {
  constructor(private readonly keys: KeyStore) {}

  async execute(
    actor: AuditActor,
    orgName: string,
    name = '',
  ): Promise<{ id: string; org_id: string; key: string }> {
    const secret = generateKeySecret();
    const key = await this.keys.store(actor, orgName, { name, secret, kind: 'sk-svc' });
    return { id: key.id, org_id: key.orgId, key: secret };
  }
}
