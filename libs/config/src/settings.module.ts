import { DynamicModule, Global, Module } from '@nestjs/common';
import { Settings } from './settings';

/** Makes the validated Settings injectable by class everywhere. */
@Global()
@Module({})
export class SettingsModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: SettingsModule,
      providers: [{ provide: Settings, useValue: settings }],
      exports: [Settings],
    };
  }
}
