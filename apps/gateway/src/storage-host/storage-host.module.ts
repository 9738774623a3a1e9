import { Module } from '@nestjs/common';
import { StorageModule } from '@app/storage';
import { LocalStorageHost } from './local-storage-host';

/** The embedded storage host's lifecycle: imported by the gateway only. */
@Module({ imports: [StorageModule], providers: [LocalStorageHost] })
export class StorageHostModule {}
