import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings } from '@app/config';
import { DeploymentSecretRepository } from '@app/persistence';
import { FileAttachments } from './file-attachments';
import { S3Driver } from './s3.driver';
import { StorageDriver } from './storage-driver';
import { createStorageDriver } from './storage-driver.factory';
import { UntrustedParsing } from './untrusted-parsing/untrusted-parsing';

/**
 * The storage driver STORAGE_DRIVER names, the file-attachment surface and the parsing threads for untrusted
 * content, for every app that touches files (gateway, worker). Global: import it once in the app's root module.
 */
@Global()
@Module({
  providers: [
    {
      provide: StorageDriver,
      inject: [Settings, DeploymentSecretRepository],
      useFactory: createStorageDriver,
    },
    FileAttachments,
    UntrustedParsing,
  ],
  exports: [StorageDriver, FileAttachments, UntrustedParsing],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(StorageDriver) private readonly storage: StorageDriver) {}

  onApplicationShutdown(): void {
    if (this.storage instanceof S3Driver) this.storage.destroy();
  }
}
