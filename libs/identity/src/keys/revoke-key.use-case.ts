import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { NotFoundError } from '@app/contracts';
import { ApiKeyRepository } from '@app/persistence';
import { REDIS } from '@app/redis';
import { keyRevocationChannel } from '../key-revocations';

/** `keys:revoke`: every replica stops accepting the key at once (and within KEY_CACHE_TTL_MS at worst). */
@Injectable()
export class RevokeKey {
  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly settings: Settings,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  async execute(id: string): Promise<{ id: string; revoked: true }> {
    const key = await this.keys.revoke(id);
    if (!key) throw new NotFoundError('Key not found');
    await this.redis.publish(keyRevocationChannel(this.settings.redisPrefix), key.keyHash);
    return { id: key.id, revoked: true };
  }
}
