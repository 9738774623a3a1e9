import { Module } from '@nestjs/common';
import { LocalStorageHost } from './local-storage-host';

/** The embedded storage host's lifecycle: imported by the gateway only. */
@Module({ providers: [LocalStorageHost] })
export class StorageHostModule {}
