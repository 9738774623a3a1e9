import { Injectable } from '@nestjs/common';
import { Settings } from '@app/config';
import { ConnectionEntity, SourceEntity } from '@app/persistence';
import { StorageDriver } from '@app/storage';
import { ConnectionTokens, storeHttpOptions } from '../connections/connection-tokens';
import { GoogleDriveConfig, GoogleDriveReader } from './google-drive.reader';
import { MsGraphReader, SharePointConfig } from './ms-graph.reader';
import { StoreReader } from './store';
import { StoreApi } from './store-api';
import { UploadReader } from './upload.reader';

/** The reader of a source's store, talking to the base URLs of the settings with the connection's tokens. */
@Injectable()
export class StoreReaders {
  constructor(
    private readonly settings: Settings,
    private readonly tokens: ConnectionTokens,
    private readonly storage: StorageDriver,
  ) {}

  for(source: SourceEntity, connection: ConnectionEntity): StoreReader {
    const http = storeHttpOptions(this.settings);
    const tokens = this.tokens.tokenSource({ orgId: source.orgId }, connection.id);
    switch (source.store) {
      case 'googledrive':
        return new GoogleDriveReader(
          new StoreApi(this.settings.googleDriveApiUrl, tokens, http),
          source.config as unknown as GoogleDriveConfig,
        );
      case 'sharepoint':
        return new MsGraphReader(
          new StoreApi(this.settings.msGraphApiUrl, tokens, http),
          source.config as unknown as SharePointConfig,
        );
      case 'draganddrop':
        return new UploadReader(this.storage);
    }
  }
}
