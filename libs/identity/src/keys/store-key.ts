import { DataSource } from 'typeorm';
import { AuditActor } from '@app/contracts';
import { ApiKeyEntity, ApiKeyRepository, recordAudit } from '@app/persistence';
import { hashKeySecret } from '../api-key-secret';

/** A key to store: its secret is hashed here, and only the hash is kept. */
interface NewKey {
  orgId: string;
  name: string;
  secret: string;
  kind: ApiKeyEntity['kind'];
}

/**
 * Stores a key and its `key.created` audit event in one transaction. A created key and an imported one are
 * the same new way in: the same action, the key's kind telling them apart.
 */
export async function storeKey(
  db: DataSource,
  keys: ApiKeyRepository,
  actor: AuditActor,
  { orgId, name, secret, kind }: NewKey,
): Promise<ApiKeyEntity> {
  return db.transaction(async (tx) => {
    const key = await keys.create({ orgId, name, keyHash: hashKeySecret(secret), kind }, tx);
    await recordAudit(tx, {
      orgId,
      actor,
      action: 'key.created',
      target: { type: 'key', id: key.id },
      details: { name, kind: key.kind },
    });
    return key;
  });
}
