import { DocumentEntity, ListedDocument, SourceSyncState } from '@app/persistence';
import { jsonOf, readBounded } from './store-http';
import { StoreApi } from './store-api';
import { Downloaded, ListingSink, StoreReader } from './store';

export interface GoogleDriveConfig {
  folder_id: string;
  recursive?: boolean;
}

interface DriveFile {
  id: string;
  name: string;
  mimeType: string;
  md5Checksum?: string;
  version?: string;
  modifiedTime?: string;
  size?: string;
  parents?: string[];
  trashed?: boolean;
}

interface DriveChange {
  fileId: string;
  removed?: boolean;
  file?: DriveFile;
}

const FOLDER = 'application/vnd.google-apps.folder';
const FILE_FIELDS = 'id,name,mimeType,md5Checksum,version,modifiedTime,size,parents,trashed';
/** Google's own formats have no bytes of their own: they are exported to text. */
const GOOGLE_EXPORTS: Record<string, string> = {
  'application/vnd.google-apps.document': 'text/plain',
  'application/vnd.google-apps.spreadsheet': 'text/csv',
  'application/vnd.google-apps.presentation': 'text/plain',
};
const PAGE_SIZE = '1000';

/** Google Drive v3: a folder (recursively when asked), its files, Google Docs exported, the changes feed. */
export class GoogleDriveReader implements StoreReader {
  constructor(
    private readonly api: StoreApi,
    private readonly config: GoogleDriveConfig,
  ) {}

  async list(state: SourceSyncState, sink: ListingSink): Promise<SourceSyncState> {
    return state.cursor === null ? this.listAll(state, sink) : this.listChanges(state, sink);
  }

  async download(document: DocumentEntity, maxBytes: number): Promise<Downloaded | null> {
    const exportType = GOOGLE_EXPORTS[document.mimeType];
    const path = `/drive/v3/files/${encodeURIComponent(document.externalId)}${exportType ? '/export' : ''}`;
    const response = await this.api.get(
      path,
      exportType ? { mimeType: exportType } : { alt: 'media', supportsAllDrives: 'true' },
    );
    const bytes = await readBounded(response, maxBytes);
    return bytes ? { bytes, mimeType: exportType ?? document.mimeType } : null;
  }

  /** Every file under the folder; the changes token is taken first so nothing changed meanwhile is missed. */
  private async listAll(state: SourceSyncState, sink: ListingSink): Promise<SourceSyncState> {
    const { startPageToken } = await jsonOf<{ startPageToken: string }>(
      await this.api.get('/drive/v3/changes/startPageToken', { supportsAllDrives: 'true' }),
    );
    const folders = [this.config.folder_id];
    for (let index = 0; index < folders.length; index++) {
      let pageToken: string | undefined;
      do {
        const page = await jsonOf<{ files?: DriveFile[]; nextPageToken?: string }>(
          await this.api.get('/drive/v3/files', {
            q: `'${folders[index]}' in parents and trashed = false`,
            fields: `nextPageToken,files(${FILE_FIELDS})`,
            pageSize: PAGE_SIZE,
            pageToken,
            supportsAllDrives: 'true',
            includeItemsFromAllDrives: 'true',
          }),
        );
        const files = page.files ?? [];
        if (this.config.recursive !== false) {
          folders.push(...files.filter((file) => file.mimeType === FOLDER).map((file) => file.id));
        }
        await sink.upsert(files.filter(isDocument).map(toListed));
        pageToken = page.nextPageToken;
      } while (pageToken);
    }
    return { ...state, nextCursor: startPageToken, folders };
  }

  /** The changes feed since the cursor: files added, changed, moved out, trashed or removed. */
  private async listChanges(state: SourceSyncState, sink: ListingSink): Promise<SourceSyncState> {
    const folders = new Set(state.folders ?? [this.config.folder_id]);
    let pageToken: string = state.cursor as string;
    for (;;) {
      const page = await jsonOf<{
        changes?: DriveChange[];
        nextPageToken?: string;
        newStartPageToken?: string;
      }>(
        await this.api.get('/drive/v3/changes', {
          pageToken,
          pageSize: PAGE_SIZE,
          includeRemoved: 'true',
          supportsAllDrives: 'true',
          includeItemsFromAllDrives: 'true',
          fields: `nextPageToken,newStartPageToken,changes(fileId,removed,file(${FILE_FIELDS}))`,
        }),
      );
      const upserts: ListedDocument[] = [];
      const removals: string[] = [];
      for (const change of page.changes ?? []) {
        const file = change.file;
        const inside = !!file?.parents?.some((parent) => folders.has(parent));
        if (change.removed || !file || file.trashed || !inside) {
          removals.push(change.fileId);
          if (file?.mimeType === FOLDER) folders.delete(file.id);
        } else if (file.mimeType === FOLDER) {
          if (this.config.recursive !== false) folders.add(file.id);
        } else if (isDocument(file)) {
          upserts.push(toListed(file));
        }
      }
      await sink.upsert(upserts);
      await sink.remove(removals);
      if (page.newStartPageToken) {
        return { ...state, nextCursor: page.newStartPageToken, folders: [...folders] };
      }
      if (!page.nextPageToken) throw new Error('the changes feed ended without a new start page token');
      pageToken = page.nextPageToken;
    }
  }
}

/** Files with bytes, and Google formats that export to text; not folders, shortcuts, forms or drawings. */
function isDocument(file: DriveFile): boolean {
  if (file.mimeType === FOLDER) return false;
  return !file.mimeType.startsWith('application/vnd.google-apps.') || file.mimeType in GOOGLE_EXPORTS;
}

function toListed(file: DriveFile): ListedDocument {
  return {
    externalId: file.id,
    name: file.name,
    mimeType: file.mimeType,
    size: Number(file.size ?? 0),
    version: file.md5Checksum ?? file.version ?? file.modifiedTime ?? 'unversioned',
  };
}
