import { DynamicModule, Module } from '@nestjs/common';
import { AgentManagementModule } from '@app/agent-management';
import { Settings, SettingsModule } from '@app/config';
import { EvalsModule } from '@app/evals';
import { IdentityModule } from '@app/identity';
import { PersistenceModule } from '@app/persistence';
import { RedisModule } from '@app/redis';

/** The admin CLI's context: the same use cases the services use, no HTTP and no queue consumers. */
@Module({})
export class AdminModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: AdminModule,
      imports: [
        SettingsModule.forRoot(settings),
        PersistenceModule,
        RedisModule.forRoot('background'),
        IdentityModule,
        AgentManagementModule,
        EvalsModule,
      ],
    };
  }
}
