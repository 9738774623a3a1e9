import { prefixedKey } from '@app/redis';

/** Channel on which a revocation is announced, so every gateway replica drops the key from its cache at once. */
export const keyRevocationChannel = (redisPrefix: string) => prefixedKey(redisPrefix, 'keys', 'revoked');
