import { Global, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Settings } from '@app/config';
import { FileAttachments } from './file-attachments';
import { S3Driver } from './s3.driver';
import { StorageDriver } from './storage-driver';
import { createStorageDriver } from './storage-driver.factory';

/**
 * The storage driver STORAGE_DRIVER names and the file-attachment surface, for every app that touches
 * files (gateway, worker). Global: import it once in the app's root module.
 */
@Global()
@Module({
  providers: [
    { provide: StorageDriver, inject: [Settings], useFactory: createStorageDriver },
    FileAttachments,
  ],
  exports: [StorageDriver, FileAttachments],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(@Inject(StorageDriver) private readonly storage: StorageDriver) {}

  onApplicationShutdown(): void {
    if (this.storage instanceof S3Driver) this.storage.destroy();
  }
}
