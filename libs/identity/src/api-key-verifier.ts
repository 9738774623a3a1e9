import { Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { ApiKeyRepository } from '@app/persistence';
import { createRedisConnection } from '@app/redis';
import { hashesEqual, hashKeySecret } from './api-key-secret';
import { keyRevocationChannel } from './key-revocations';

interface VerifiedKey {
  keyId: string;
  orgId: string;
}

interface CacheEntry extends VerifiedKey {
  keyHash: string;
  expiresAt: number;
}

const MAX_CACHED_KEYS = 10_000;

/**
 * Checks a secret against the stored key hashes. Verified keys are cached for KEY_CACHE_TTL_MS, so
 * authentication is not a database round trip per request; a revocation published on Redis drops the key
 * from every replica's cache at once, and the TTL bounds the delay if that message is missed.
 */
@Injectable()
export class ApiKeyVerifier implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ApiKeyVerifier.name);
  private readonly cache = new Map<string, CacheEntry>();
  /** Key id → key hash of the cached keys, for end-user tokens, which name their key by id. */
  private readonly hashById = new Map<string, string>();
  private subscriber?: Redis;

  constructor(
    private readonly keys: ApiKeyRepository,
    private readonly settings: Settings,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscriber = createRedisConnection(this.settings, 'key-revocations');
    this.subscriber.on('message', (_channel, keyHash: string) => this.forget(keyHash));
    // Messages missed while disconnected are covered by the TTL; start afresh after a reconnect anyway.
    this.subscriber.on('ready', () => {
      this.cache.clear();
      this.hashById.clear();
    });
    await this.subscriber.subscribe(keyRevocationChannel(this.settings.redisPrefix));
  }

  async onModuleDestroy(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }

  async verify(secret: string): Promise<VerifiedKey | null> {
    const keyHash = hashKeySecret(secret);
    const now = Date.now();
    const cached = this.cache.get(keyHash);
    if (cached && cached.expiresAt > now && hashesEqual(cached.keyHash, keyHash)) {
      return { keyId: cached.keyId, orgId: cached.orgId };
    }
    const key = await this.keys.findActiveByHash(keyHash);
    if (!key || !hashesEqual(key.keyHash, keyHash)) {
      this.forget(keyHash);
      return null;
    }
    this.remember(key, now);
    return { keyId: key.id, orgId: key.orgId };
  }

  /**
   * Whether the key with this id is live: how an end-user token checks the key that minted it. It shares the
   * keys' cache and revocations, so a token costs what its key would, and a revoked key's tokens stop at once.
   */
  async isLive(keyId: string): Promise<boolean> {
    const now = Date.now();
    const keyHash = this.hashById.get(keyId);
    const cached = keyHash === undefined ? undefined : this.cache.get(keyHash);
    if (cached && cached.expiresAt > now) return true;
    const key = await this.keys.findById(keyId);
    if (!key || key.revokedAt !== null) return false;
    this.remember(key, now);
    return true;
  }

  private remember(key: { id: string; orgId: string; keyHash: string }, now: number): void {
    if (this.cache.size >= MAX_CACHED_KEYS) this.forget(this.cache.keys().next().value as string);
    this.cache.set(key.keyHash, {
      keyHash: key.keyHash,
      keyId: key.id,
      orgId: key.orgId,
      expiresAt: now + this.settings.keyCacheTtlMs,
    });
    this.hashById.set(key.id, key.keyHash);
    this.logger.debug({ keyId: key.id }, 'key cached');
  }

  private forget(keyHash: string): void {
    const cached = this.cache.get(keyHash);
    if (cached) this.hashById.delete(cached.keyId);
    this.cache.delete(keyHash);
  }
}
