import { Module } from '@nestjs/common';
import { ManageAgents } from './manage-agents';
import { ManageKeys } from './manage-keys';

/** Managing organizations, their API keys and their agents (the admin CLI's use cases). */
@Module({
  providers: [ManageKeys, ManageAgents],
  exports: [ManageKeys, ManageAgents],
})
export class IdentityModule {}
