import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { DataSource } from 'typeorm';
import { Settings } from '@app/config';
import { AuditActor, NotFoundError } from '@app/contracts';
import { ApiKeyRepository, recordAudit } from '@app/persistence';
import { REDIS } from '@app/redis';
import { keyRevocationChannel } from '../key-revocations';

/** `keys:revoke`: every replica stops accepting the key at once (and within KEY_CACHE_TTL_MS at worst). */
@Injectable()
export class RevokeKey {
  constructor(
    private readonly db: DataSource,
    private readonly keys: ApiKeyRepository,
    private readonly settings: Settings,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async execute(actor: AuditActor, id: string): Promise<{ id: string; revoked: true }> {
    const key = await this.db.transaction(async (tx) => {
      const revoked = await this.keys.revoke(id, tx);
      if (!revoked) throw new NotFoundError('Key not found');
      // Revoking a revoked key changes nothing, so it records nothing.
      if (revoked.revokedNow) {
        await recordAudit(tx, {
          orgId: revoked.key.orgId,
          actor,
          action: 'key.revoked',
          target: { type: 'key', id: revoked.key.id },
          details: { name: revoked.key.name },
        });
      }
      return revoked.key;
    });
    // Classic PUBLISH even on a Redis Cluster: every gateway listens to this one channel (one slot, so sharding
    // would spread nothing), and revocations are rare.
    await this.redis.publish(keyRevocationChannel(this.settings.redisPrefix), key.keyHash);
    return { id: key.id, revoked: true };
  }
}
