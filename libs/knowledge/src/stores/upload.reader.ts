import { DocumentEntity, SourceSyncState } from '@app/persistence';
import { readAtMost } from '@app/documents';
import { storageKeyOf } from '@app/files';
import { StorageDriver } from '@app/storage';
import { Downloaded, StoreReader } from './store';

/**
 * Drag-and-drop sources: documents are added by POST /dc/sources/{pid}/documents (uploaded files of the
 * caller), so there is nothing to list; their bytes are read from the storage driver.
 */
export class UploadReader implements StoreReader {
  constructor(private readonly storage: StorageDriver) {}

  list(state: SourceSyncState): Promise<SourceSyncState> {
    return Promise.resolve({ ...state, nextCursor: 'uploads' });
  }

  async download(document: DocumentEntity, maxBytes: number): Promise<Downloaded | null> {
    const stream = await this.storage.read(storageKeyOf(document.orgId, document.externalId));
    if (!stream) throw new Error('the uploaded file is gone from storage');
    const { bytes, complete } = await readAtMost(stream, maxBytes);
    return complete ? { bytes, mimeType: document.mimeType } : null;
  }
}
