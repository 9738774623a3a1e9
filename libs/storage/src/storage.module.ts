import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings } from '@app/config';
import { DeploymentSecretRepository } from '@app/persistence';
import { StorageDriver } from './storage-driver';
import { createStorageDriver } from './storage-driver.factory';

/** The storage driver STORAGE_DRIVER names; closes it on shutdown. */
@Module({
  providers: [
    {
      provide: StorageDriver,
      inject: [Settings, DeploymentSecretRepository],
      useFactory: createStorageDriver,
    },
  ],
  exports: [StorageDriver],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(StorageDriver) private readonly storage: StorageDriver) {}

  onApplicationShutdown(): void {
    this.storage.close();
  }
}
