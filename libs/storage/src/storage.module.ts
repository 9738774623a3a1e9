import { Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings } from '@app/config';
import { DeploymentSecretRepository } from '@app/persistence';
import { S3Driver } from './s3.driver';
import { StorageDriver } from './storage-driver';
import { createStorageDriver } from './storage-driver.factory';

/** The storage driver STORAGE_DRIVER names; closes the S3 client on shutdown. */
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
    if (this.storage instanceof S3Driver) this.storage.destroy();
  }
}
