import { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from './fake-http-server';
import { FakeOAuth, sendJson } from './fake-oauth';

interface FakeItem {
  id: string;
  name: string;
  /** Folder path under the drive root, `` or `/A/B`. */
  folder: string;
  mimeType: string;
  content: Buffer;
  version: number;
  deleted: boolean;
  changedAt: number;
}

/**
 * A local Microsoft Graph (the parts a sync uses) and its token endpoint: a site's default drive, the
 * drive's root delta feed with next and delta links, item downloads, `/me`.
 */
export class FakeMsGraph extends FakeHttpServer {
  readonly oauth = new FakeOAuth();
  readonly items = new Map<string, FakeItem>();
  readonly requests: string[] = [];
  readonly driveId = 'drive-1';
  pageSize = 100;
  private clock = 0;
  private nextId = 1;

  get apiUrl(): string {
    return `${this.url}/v1.0`;
  }

  get tokenUrl(): string {
    return `${this.url}/common/oauth2/v2.0/token`;
  }

  addItem(folder: string, name: string, mimeType: string, content: Buffer | string): string {
    const id = `item${this.nextId++}`;
    this.items.set(id, {
      id,
      name,
      folder,
      mimeType,
      content: Buffer.from(content),
      version: 1,
      deleted: false,
      changedAt: ++this.clock,
    });
    return id;
  }

  updateItem(id: string, content: Buffer | string): void {
    const item = this.items.get(id)!;
    Object.assign(item, {
      content: Buffer.from(content),
      version: item.version + 1,
      changedAt: ++this.clock,
    });
  }

  deleteItem(id: string): void {
    Object.assign(this.items.get(id)!, { deleted: true, changedAt: ++this.clock });
  }

  protected async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    this.requests.push(url.pathname + url.search);
    if (url.pathname === '/common/oauth2/v2.0/token' && request.method === 'POST')
      return this.oauth.token(request, response);
    if (!this.oauth.authorized(request)) {
      return sendJson(response, 401, {
        error: { code: 'InvalidAuthenticationToken', message: 'Access token has expired' },
      });
    }
    const path = url.pathname.replace(/^\/v1\.0/, '');
    if (path === '/me') return sendJson(response, 200, { displayName: 'Fake User' });
    if (/^\/sites\/[^/]+\/drive$/.test(path)) return sendJson(response, 200, { id: this.driveId });
    if (path === `/drives/${this.driveId}/root/delta`) return this.deltaPage(url, response);
    const content = new RegExp(`^/drives/${this.driveId}/items/([^/]+)/content$`).exec(path);
    if (content) {
      const item = this.items.get(content[1]);
      if (!item || item.deleted) return sendJson(response, 404, { error: { code: 'itemNotFound' } });
      response.writeHead(200, {
        'content-type': item.mimeType,
        'content-length': String(item.content.length),
      });
      response.end(item.content);
      return;
    }
    sendJson(response, 404, { error: { code: 'notFound', message: path } });
  }

  /** `token` is the clock of the last delta link; `skip` pages within one round. */
  private deltaPage(url: URL, response: ServerResponse): void {
    const since = Number(url.searchParams.get('token') ?? 0);
    const skip = Number(url.searchParams.get('skip') ?? 0);
    const now = Number(url.searchParams.get('until') ?? this.clock);
    const changed = [...this.items.values()]
      .filter((item) => item.changedAt > since && item.changedAt <= now && !(since === 0 && item.deleted))
      .sort((a, b) => a.changedAt - b.changedAt);
    const page = changed.slice(skip, skip + this.pageSize);
    const base = `${this.apiUrl}/drives/${this.driveId}/root/delta`;
    sendJson(response, 200, {
      value: page.map((item) =>
        item.deleted
          ? { id: item.id, deleted: { state: 'deleted' } }
          : {
              id: item.id,
              name: item.name,
              size: item.content.length,
              eTag: `"{${item.id}},${item.version}"`,
              cTag: `"c:{${item.id}},${item.version}"`,
              file: { mimeType: item.mimeType },
              parentReference: { driveId: this.driveId, path: `/drive/root:${item.folder}` },
            },
      ),
      ...(skip + this.pageSize < changed.length
        ? { '@odata.nextLink': `${base}?token=${since}&until=${now}&skip=${skip + this.pageSize}` }
        : { '@odata.deltaLink': `${base}?token=${now}` }),
    });
  }
}
