import { DynamicModule, Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { Settings, SettingsModule } from '@app/config';
import { LoggingModule } from '@app/observability';
import { PersistenceModule } from '@app/persistence';
import { QueuesModule } from '@app/queues';
import { RedisModule } from '@app/redis';
import { AuthModule } from './auth/auth.module';
import { ChatModule } from './chat/chat.module';
import { FilesModule } from './files/files.module';
import { HttpErrorFilter } from './http/http-error.filter';
import { MemoryModule } from './memory/memory.module';
import { OpsModule } from './ops/ops.module';
import { SkillsModule } from './skills/skills.module';
import { SourcesModule } from './sources/sources.module';
import { StreamModule } from './stream/stream.module';
import { TemplatesModule } from './templates/templates.module';

/** The HTTP API: one module per area of the spec, behind the service-token guard. */
@Module({})
export class GatewayModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        SettingsModule.forRoot(settings),
        LoggingModule.forApp('gateway'),
        PersistenceModule,
        RedisModule,
        QueuesModule,
        AuthModule,
        OpsModule,
        ChatModule,
        FilesModule,
        MemoryModule,
        TemplatesModule,
        SkillsModule,
        SourcesModule,
        StreamModule,
      ],
      providers: [{ provide: APP_FILTER, useClass: HttpErrorFilter }],
    };
  }
}
