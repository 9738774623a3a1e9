import { DocumentEntity, ListedDocument, SourceSyncState } from '@app/persistence';
import { jsonOf, readBounded } from './store-http';
import { StoreApi } from './store-api';
import { Downloaded, ListingSink, StoreReader } from './store';

export interface SharePointConfig {
  site_id: string;
  drive_id?: string;
  folder_path?: string;
}

interface DriveItem {
  id: string;
  name?: string;
  size?: number;
  eTag?: string;
  cTag?: string;
  lastModifiedDateTime?: string;
  file?: { mimeType?: string };
  folder?: unknown;
  deleted?: unknown;
  parentReference?: { path?: string };
}

interface DeltaPage {
  value?: DriveItem[];
  '@odata.nextLink'?: string;
  '@odata.deltaLink'?: string;
}

/** `/A/B` from `A/B/`, `/A/B` or ``; `` for the drive's root. */
const normalizeFolderPath = (path: string | undefined): string =>
  (path ?? '')
    .split('/')
    .filter(Boolean)
    .map((segment) => `/${segment}`)
    .join('');

/**
 * Microsoft Graph: a SharePoint site's drive (or a named drive), a folder of it, the delta feed for
 * incremental syncs, and downloads. The delta feed is read from the drive's root (where every drive type
 * supports it) and narrowed to the folder by each item's parent path.
 */
export class MsGraphReader implements StoreReader {
  private drive?: Promise<string>;

  constructor(
    private readonly api: StoreApi,
    private readonly config: SharePointConfig,
  ) {}

  async list(state: SourceSyncState, sink: ListingSink): Promise<SourceSyncState> {
    if (state.driveId) this.drive = Promise.resolve(state.driveId);
    const driveId = await this.resolveDrive();
    const folderPath = normalizeFolderPath(this.config.folder_path);
    let link: string = state.cursor ?? `/drives/${encodeURIComponent(driveId)}/root/delta`;
    for (;;) {
      const page = await jsonOf<DeltaPage>(await this.api.get(link));
      const upserts: ListedDocument[] = [];
      const removals: string[] = [];
      for (const item of page.value ?? []) {
        if (item.folder && !item.deleted) continue;
        if (item.deleted || !item.file || !insideFolder(item, folderPath)) removals.push(item.id);
        else upserts.push(toListed(item));
      }
      await sink.upsert(upserts);
      await sink.remove(removals);
      if (page['@odata.deltaLink'])
        return { ...state, driveId, folderPath, nextCursor: page['@odata.deltaLink'] };
      if (!page['@odata.nextLink']) throw new Error('the delta feed ended without a delta link');
      link = page['@odata.nextLink'];
    }
  }

  async download(document: DocumentEntity, maxBytes: number): Promise<Downloaded | null> {
    const driveId = await this.resolveDrive();
    const response = await this.api.get(
      `/drives/${encodeURIComponent(driveId)}/items/${encodeURIComponent(document.externalId)}/content`,
    );
    const bytes = await readBounded(response, maxBytes);
    return bytes ? { bytes, mimeType: document.mimeType } : null;
  }

  /** The drive: the configured one, else the site's default drive (asked once). */
  private resolveDrive(): Promise<string> {
    if (this.config.drive_id) return Promise.resolve(this.config.drive_id);
    this.drive ??= this.api
      .get(`/sites/${encodeURIComponent(this.config.site_id)}/drive`, { $select: 'id' })
      .then((response) => jsonOf<{ id: string }>(response))
      .then((drive) => drive.id);
    return this.drive;
  }
}

/** Whether the item sits in the folder or below it (`parentReference.path` is `/drive/root:/A/B`). */
function insideFolder(item: DriveItem, folderPath: string): boolean {
  const path = item.parentReference?.path;
  if (path === undefined) return false;
  const marker = path.indexOf('root:');
  if (marker < 0) return false;
  const parent = decodeURIComponent(path.slice(marker + 'root:'.length));
  return folderPath === '' || parent === folderPath || parent.startsWith(`${folderPath}/`);
}

function toListed(item: DriveItem): ListedDocument {
  return {
    externalId: item.id,
    name: item.name ?? item.id,
    mimeType: item.file?.mimeType ?? 'application/octet-stream',
    size: item.size ?? 0,
    version: item.cTag ?? item.eTag ?? item.lastModifiedDateTime ?? 'unversioned',
  };
}
