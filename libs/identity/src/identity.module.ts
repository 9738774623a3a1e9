import { Module } from '@nestjs/common';
import { ManageKeys } from './manage-keys';

/** Managing organizations and their API keys (the admin CLI's use cases). */
@Module({
  providers: [ManageKeys],
  exports: [ManageKeys],
})
export class IdentityModule {}
