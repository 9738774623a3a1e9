import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { useDeployment } from '../support/deployment';
import { createOrg } from '../factories/admin';
import { api } from '../support/http';
import { postUpload as upload, UploadPermission as Permission } from '../support/uploads';
import { AppProcess, freePort, startGateway } from '../support/processes';
import { createTestEnvironment, queryDatabase, TestEnvironment } from '../support/test-environment';

/**
 * Issue 16, items 1 and 9, attacked on real gateways: an upload permission used again to change a file after
 * it was shared, a stored object that no longer matches its record, and what a download lets a browser do.
 */
/**
 * One GET on a raw keep-alive socket: the status, the declared length, the body and whatever bytes came
 * after it on the connection (a second response smuggled in by a longer object would land there).
 */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; length: number; body: Buffer; after: Buffer }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    const chunks: Buffer[] = [];
    let idle: NodeJS.Timeout | undefined;
    const finish = () => {
      socket.destroy();
      const all = Buffer.concat(chunks);
      const end = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, end).toString('latin1');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? -1);
      const rest = all.subarray(end + 4);
      resolve({ status, length, body: rest.subarray(0, length), after: rest.subarray(Math.max(0, length)) });
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      clearTimeout(idle);
      idle = setTimeout(finish, 400);
    });
    socket.on('error', reject);
    socket.on('close', () => {
      clearTimeout(idle);
      if (chunks.length > 0) finish();
    });
    const extra = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(
      `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: keep-alive\r\n${extra}\r\n`,
    );
  });
}

const SHARED = Buffer.from('the quarterly figures, as shared\n');
const SMUGGLED = Buffer.from(
  'extra bytes\r\n\r\nHTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: 27\r\n\r\n<script>alert(1)</script>\n',
);

/** A file of `client` uploaded, completed (by creating a share link) and shared; the permission is kept. */
async function sharedFile(
  client: ReturnType<typeof api>,
  filename = 'q.txt',
): Promise<{ permission: Permission; fileId: string; linkUrl: string }> {
  const permission = (
    await client.get<Permission>(`/chat/files/upload?filename=${filename}&mimetype=text/plain`)
  ).body;
  expect((await upload(permission, SHARED)).status).toBe(204);
  const fileId = permission.fields['x-amz-meta-file-id'];
  const link = await client.post(`/chat/files/${fileId}/share_links`, {});
  expect(link.status).toBe(200);
  return { permission, fileId, linkUrl: link.body.url };
}

describe('security: files (issue 16, items 1 and 9)', () => {
  const deployment = useDeployment({ storageDir: true });
  let client: ReturnType<typeof api>;

  beforeAll(() => {
    client = deployment.client();
  });

  it('refuses a second post of an upload permission; the shared bytes and their length never change', async () => {
    const { permission, fileId, linkUrl } = await sharedFile(client);
    const again = await upload(permission, Buffer.concat([SHARED, SMUGGLED]));
    expect(again.status).toBe(403);
    expect(await again.text()).toContain('already been used');

    const shared = await rawGet(linkUrl);
    expect(shared.status).toBe(200);
    expect(shared.length).toBe(SHARED.length);
    expect(shared.body.equals(SHARED)).toBe(true);
    expect(shared.after.length).toBe(0);

    const file = await client.get(`/chat/files/${fileId}`);
    expect(file.body.size).toBe(SHARED.length);
    const direct = await rawGet(file.body.url);
    expect(direct.status).toBe(200);
    expect(direct.body.equals(SHARED)).toBe(true);
    expect(direct.after.length).toBe(0);
  });

  it('takes exactly one of many concurrent posts of one permission', async () => {
    const permission = (await client.get<Permission>('/chat/files/upload?filename=r.txt&mimetype=text/plain'))
      .body;
    const posts = await Promise.all(
      Array.from({ length: 6 }, (_, i) => upload(permission, Buffer.from(`racer ${i} `.repeat(i + 1)))),
    );
    expect(posts.map((post) => post.status).sort()).toEqual([204, 403, 403, 403, 403, 403]);
  });

  it('never serves more than the recorded size, on every download path, when the object grew', async () => {
    const { fileId, linkUrl } = await sharedFile(client);
    const file = await client.get(`/chat/files/${fileId}`);
    // The object changes behind the service's back (a disk edited by hand, a restored backup...).
    const [row] = await queryDatabase<{ storage_key: string }>(
      deployment.environment.databaseUrl,
      'SELECT storage_key FROM conversation_files WHERE id = $1',
      [fileId],
    );
    await appendFile(join(deployment.storageDir, row.storage_key), SMUGGLED);

    // Exactly the recorded bytes (or a refusal), and nothing after them on the connection.
    for (const download of [await rawGet(linkUrl), await rawGet(file.body.url)]) {
      expect([200, 409]).toContain(download.status);
      if (download.status === 200) expect(download.body.equals(SHARED)).toBe(true);
      expect(download.after.length).toBe(0);
    }
  });

  it('serves every download with nosniff and CSP sandbox, and security headers on the API', async () => {
    const { fileId, linkUrl } = await sharedFile(client);
    const file = await client.get(`/chat/files/${fileId}`);
    for (const response of [await fetch(linkUrl), await fetch(file.body.url)]) {
      expect(response.status).toBe(200);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('content-security-policy')).toBe('sandbox');
      expect(response.headers.get('content-disposition')).toMatch(/^attachment;/);
    }
    const page = await fetch(`${deployment.url}/health/live`);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
  });
});

describe('security: files on S3 (issue 16, item 1)', () => {
  let environment: TestEnvironment;
  let gateway: AppProcess;
  let s3: S3rver;
  let s3Dir: string;
  let client: ReturnType<typeof api>;

  beforeAll(async () => {
    s3Dir = await mkdtemp(join(tmpdir(), 'parley-security-s3-'));
    const port = await freePort();
    s3 = new S3rver({ address: '127.0.0.1', port, silent: true, directory: s3Dir });
    await s3.run();
    environment = await createTestEnvironment({
      STORAGE_DRIVER: 's3',
      S3_ENDPOINT: `http://127.0.0.1:${port}`,
      S3_BUCKET: 'parley-security',
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
      S3_FORCE_PATH_STYLE: 'true',
    });
    gateway = await startGateway(environment.env);
    client = api(gateway.url!, (await createOrg(environment.env)).key);
  });

  afterAll(async () => {
    await gateway?.stop();
    await environment?.dispose();
    await s3?.close();
    if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
  });

  it('seals a file at completion: reusing its permission changes neither the share nor the url download', async () => {
    const { permission, fileId, linkUrl } = await sharedFile(client, 's.txt');

    // S3 cannot refuse the second post; it lands at the upload key, which nothing reads any more.
    await upload(permission, Buffer.concat([SHARED, SMUGGLED]));

    const shared = await rawGet(linkUrl);
    expect(shared.status).toBe(200);
    expect(shared.body.equals(SHARED)).toBe(true);
    expect(shared.after.length).toBe(0);
    const file = await client.get(`/chat/files/${fileId}`);
    expect(file.body.size).toBe(SHARED.length);
    const direct = await fetch(file.body.url);
    expect(Buffer.from(await direct.arrayBuffer()).equals(SHARED)).toBe(true);
    // The SDK ran (upload, seal, share) without printing a Node version notice (issue 20: no engine warnings).
    expect(gateway.output).not.toContain('NodeVersionSupportWarning');
  });
});
