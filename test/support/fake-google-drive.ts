import { createHash } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { FakeHttpServer } from './fake-http-server';
import { FakeOAuth, sendJson } from './fake-oauth';

export const GOOGLE_DOC = 'application/vnd.google-apps.document';
export const GOOGLE_FOLDER = 'application/vnd.google-apps.folder';

interface FakeFile {
  id: string;
  name: string;
  mimeType: string;
  parents: string[];
  content: Buffer;
  version: number;
  trashed: boolean;
}

interface Change {
  seq: number;
  fileId: string;
  removed: boolean;
}

/**
 * A local Google Drive v3 (the parts a sync uses) and its token endpoint: files in folders, paging,
 * downloads (`alt=media`), Google Docs exported as text, the changes feed with page tokens, `about`.
 * Tests change files, throttle a path once with a 429 + Retry-After, slow downloads and count requests.
 */
export class FakeGoogleDrive extends FakeHttpServer {
  readonly oauth = new FakeOAuth();
  readonly files = new Map<string, FakeFile>();
  readonly requests: { method: string; path: string; at: number }[] = [];
  /** Files per listing page. */
  pageSize = 100;
  /** Delay before each download answers. */
  downloadDelayMs = 0;
  private readonly changes: Change[] = [];
  private readonly throttles: { pattern: RegExp; retryAfterSeconds: number }[] = [];
  private readonly failures: { pattern: RegExp; status: number; retryAfterSeconds: number }[] = [];
  private nextId = 1;

  get tokenUrl(): string {
    return `${this.url}/token`;
  }

  /** The settings that send the service's Google Drive calls and token refreshes here. */
  env(): NodeJS.ProcessEnv {
    return { GOOGLE_DRIVE_API_URL: this.url, GOOGLE_TOKEN_URL: this.tokenUrl };
  }

  addFolder(parent: string, name: string, id = `folder${this.nextId++}`): string {
    return this.addFile(parent, name, GOOGLE_FOLDER, '', id);
  }

  addFile(
    parent: string,
    name: string,
    mimeType: string,
    content: Buffer | string,
    id = `file${this.nextId++}`,
  ): string {
    this.files.set(id, {
      id,
      name,
      mimeType,
      parents: [parent],
      content: Buffer.from(content),
      version: 1,
      trashed: false,
    });
    this.log(id, false);
    return id;
  }

  updateFile(id: string, content: Buffer | string): void {
    const file = this.files.get(id)!;
    file.content = Buffer.from(content);
    file.version++;
    this.log(id, false);
  }

  deleteFile(id: string): void {
    this.files.delete(id);
    this.log(id, true);
  }

  /** The next request whose path matches answers 429 with Retry-After. */
  throttleOnce(pattern: RegExp, retryAfterSeconds: number): void {
    this.throttles.push({ pattern, retryAfterSeconds });
  }

  /** The next requests whose path matches answer these statuses in turn (429 with Retry-After), e.g. a burst. */
  failBurst(pattern: RegExp, statuses: number[], retryAfterSeconds = 1): void {
    for (const status of statuses) this.failures.push({ pattern, status, retryAfterSeconds });
  }

  downloads(id?: string): number {
    return this.requests.filter(
      (r) =>
        /\/drive\/v3\/files\/[^/]+(\/export)?$/.test(r.path) &&
        (!id || r.path.replace(/\/export$/, '').endsWith(`/${id}`)),
    ).length;
  }

  private log(fileId: string, removed: boolean): void {
    this.changes.push({ seq: this.changes.length + 1, fileId, removed });
  }

  protected async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', this.url);
    this.requests.push({ method: request.method ?? 'GET', path: url.pathname, at: Date.now() });
    if (url.pathname === '/token' && request.method === 'POST') return this.oauth.token(request, response);
    const throttle = this.throttles.findIndex((t) => t.pattern.test(url.pathname));
    if (throttle >= 0) {
      const [{ retryAfterSeconds }] = this.throttles.splice(throttle, 1);
      return sendJson(
        response,
        429,
        { error: { code: 429, message: 'Rate Limit Exceeded' } },
        {
          'retry-after': String(retryAfterSeconds),
        },
      );
    }
    const failure = this.failures.findIndex((f) => f.pattern.test(url.pathname));
    if (failure >= 0) {
      const [{ status, retryAfterSeconds }] = this.failures.splice(failure, 1);
      return sendJson(
        response,
        status,
        { error: { code: status, message: status === 429 ? 'Rate Limit Exceeded' : 'Backend Error' } },
        status === 429 ? { 'retry-after': String(retryAfterSeconds) } : {},
      );
    }
    if (!this.oauth.authorized(request))
      return sendJson(response, 401, { error: { code: 401, message: 'Invalid Credentials' } });

    if (url.pathname === '/drive/v3/about')
      return sendJson(response, 200, { user: { displayName: 'Fake User' } });
    if (url.pathname === '/drive/v3/changes/startPageToken') {
      return sendJson(response, 200, { startPageToken: String(this.changes.length + 1) });
    }
    if (url.pathname === '/drive/v3/changes') return this.changesPage(url, response);
    if (url.pathname === '/drive/v3/files') return this.listPage(url, response);
    const media = /^\/drive\/v3\/files\/([^/]+)(\/export)?$/.exec(url.pathname);
    if (media) {
      const file = this.files.get(decodeURIComponent(media[1]));
      if (!file || file.trashed)
        return sendJson(response, 404, { error: { code: 404, message: 'File not found' } });
      if (this.downloadDelayMs) await new Promise((resolve) => setTimeout(resolve, this.downloadDelayMs));
      const exporting = !!media[2];
      if (exporting !== file.mimeType.startsWith('application/vnd.google-apps.')) {
        return sendJson(response, 403, { error: { code: 403, message: 'fileNotDownloadable' } });
      }
      response.writeHead(200, {
        'content-type': exporting ? (url.searchParams.get('mimeType') ?? 'text/plain') : file.mimeType,
        'content-length': String(file.content.length),
      });
      response.end(file.content);
      return;
    }
    sendJson(response, 404, { error: { code: 404, message: `no route ${url.pathname}` } });
  }

  private resource(file: FakeFile) {
    const google = file.mimeType.startsWith('application/vnd.google-apps.');
    return {
      id: file.id,
      name: file.name,
      mimeType: file.mimeType,
      parents: file.parents,
      trashed: file.trashed,
      version: String(file.version),
      modifiedTime: new Date(1_700_000_000_000 + file.version * 1000).toISOString(),
      ...(google
        ? {}
        : {
            size: String(file.content.length),
            md5Checksum: createHash('md5').update(file.content).digest('hex'),
          }),
    };
  }

  private listPage(url: URL, response: ServerResponse): void {
    const parent = /^'([^']+)' in parents/.exec(url.searchParams.get('q') ?? '')?.[1];
    const all = [...this.files.values()].filter((f) => !f.trashed && f.parents.includes(parent ?? ''));
    const start = Number(url.searchParams.get('pageToken') ?? 0);
    const size = Math.min(this.pageSize, Number(url.searchParams.get('pageSize') ?? 100));
    const page = all.slice(start, start + size);
    sendJson(response, 200, {
      files: page.map((f) => this.resource(f)),
      ...(start + size < all.length ? { nextPageToken: String(start + size) } : {}),
    });
  }

  private changesPage(url: URL, response: ServerResponse): void {
    const from = Number(url.searchParams.get('pageToken'));
    const size = Math.min(this.pageSize, Number(url.searchParams.get('pageSize') ?? 100));
    const page = this.changes.filter((c) => c.seq >= from).slice(0, size);
    const last = page.length > 0 ? page[page.length - 1].seq : from - 1;
    const more = this.changes.some((c) => c.seq > last);
    sendJson(response, 200, {
      changes: page.map((c) => {
        const file = this.files.get(c.fileId);
        return c.removed || !file
          ? { fileId: c.fileId, removed: true }
          : { fileId: c.fileId, removed: false, file: this.resource(file) };
      }),
      ...(more
        ? { nextPageToken: String(last + 1) }
        : { newStartPageToken: String(this.changes.length + 1) }),
    });
  }
}
