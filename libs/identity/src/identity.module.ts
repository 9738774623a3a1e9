import { Module } from '@nestjs/common';
import { CreateKey } from './keys/create-key.use-case';
import { ImportKey } from './keys/import-key.use-case';
import { ListKeys } from './keys/list-keys.use-case';
import { RevokeKey } from './keys/revoke-key.use-case';
import { KeyStore } from './keys/store-key';

const KEY_USE_CASES = [CreateKey, ImportKey, ListKeys, RevokeKey];

/** Managing organizations and their API keys (the admin CLI's use cases). */
@Module({
  providers: [...KEY_USE_CASES, KeyStore],
  exports: KEY_USE_CASES,
})
export class IdentityModule {}
