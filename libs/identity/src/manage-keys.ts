import { Inject, Injectable } from '@nestjs/common';
import { Redis } from 'ioredis';
import { Settings } from '@app/config';
import { InvalidInputError, NotFoundError } from '@app/contracts';
import { ApiKeyRepository, OrganizationRepository } from '@app/persistence';
import { REDIS } from '@app/redis';
import { generateKeySecret, hashKeySecret, legacyKeyProblem } from './api-key-secret';
import { keyRevocationChannel } from './key-revocations';

/** Creating, importing and revoking API keys: the admin CLI's `keys:*` commands. */
@Injectable()
export class ManageKeys {
  constructor(
    private readonly organizations: OrganizationRepository,
    private readonly keys: ApiKeyRepository,
    private readonly settings: Settings,
    @Inject(REDIS) private readonly redis: Redis,
  ) {}

  /** A new `sk-svc-` key; the secret is returned here and never again. */
  async create(orgName: string, name = ''): Promise<{ id: string; org_id: string; key: string }> {
    const org = await this.organizations.findOrCreateByName(requireOrgName(orgName));
    const secret = generateKeySecret();
    const key = await this.keys.create({
      orgId: org.id,
      name,
      keyHash: hashKeySecret(secret),
      kind: 'sk-svc',
    });
    return { id: key.id, org_id: org.id, key: secret };
  }

  /** Registers a key made before the prefix existed (API-SPEC §5.3). */
  async importLegacy(orgName: string, secret: string, name = ''): Promise<{ id: string; org_id: string }> {
    const problem = legacyKeyProblem(secret);
    if (problem) throw new InvalidInputError([{ loc: ['key'], msg: problem, type: 'value_error' }]);
    const org = await this.organizations.findOrCreateByName(requireOrgName(orgName));
    const key = await this.keys.create({
      orgId: org.id,
      name,
      keyHash: hashKeySecret(secret),
      kind: 'legacy',
    });
    return { id: key.id, org_id: org.id };
  }

  /** The organization's keys as the admin sees them: never the hash, which stays in the database. */
  async list(
    orgName: string,
  ): Promise<{ keys: { id: string; name: string; created_at: string; revoked: boolean }[] }> {
    const org = await this.organizations.findByName(requireOrgName(orgName));
    if (!org) throw new NotFoundError('Organization not found');
    const keys = await this.keys.listByOrg(org.id);
    return {
      keys: keys.map((key) => ({
        id: key.id,
        name: key.name,
        created_at: key.createdAt.toISOString(),
        revoked: key.revokedAt !== null,
      })),
    };
  }

  /** Revokes a key; every replica stops accepting it at once (and within KEY_CACHE_TTL_MS at worst). */
  async revoke(id: string): Promise<{ id: string; revoked: true }> {
    const key = await this.keys.revoke(id);
    if (!key) throw new NotFoundError('Key not found');
    await this.redis.publish(keyRevocationChannel(this.settings.redisPrefix), key.keyHash);
    return { id: key.id, revoked: true };
  }
}

function requireOrgName(name: string): string {
  if (!name || name.length > 200) {
    throw new InvalidInputError([
      { loc: ['org'], msg: 'an organization name of 1-200 characters is required', type: 'value_error' },
    ]);
  }
  return name;
}
