import { createHmac } from 'node:crypto';
import { useDeployment } from '../support/deployment';
import { api } from '../support/http';
import { postUpload as upload, UploadPermission as Permission } from '../support/uploads';

/** Small enough to test the limit cheaply. */
const UPLOAD_MAX_BYTES = 4096;
const STORAGE_SIGNING_SECRET = 'files-e2e-signing-secret';
const FILE_FIELDS = ['id', 'mimetype', 'name', 'origin', 'share_links', 'size', 'url'];
const LINK_FIELDS = [
  'access_count',
  'created_at',
  'expired',
  'expires_at',
  'id',
  'last_accessed_at',
  'protected',
  'revoked',
  'url',
];

const bytesOf = async (response: Response) => Buffer.from(await response.arrayBuffer());

describe('file upload and share links', () => {
  const deployment = useDeployment({
    storageDir: true,
    env: { UPLOAD_MAX_BYTES: String(UPLOAD_MAX_BYTES), STORAGE_SIGNING_SECRET },
  });
  let client: ReturnType<typeof api>;
  let otherOrg: ReturnType<typeof api>;
  let anonymous: ReturnType<typeof api>;

  /** Both steps; answers the file id. */
  async function uploaded(
    body: Buffer,
    filename = 'notes.txt',
    mimetype = 'text/plain',
    userId?: string,
  ): Promise<string> {
    const query = new URLSearchParams({ filename, mimetype, ...(userId ? { user_id: userId } : {}) });
    const permission = await client.get<Permission>(`/chat/files/upload?${query.toString()}`);
    expect(permission.status).toBe(200);
    expect((await upload(permission.body, body, filename)).status).toBe(204);
    return permission.body.fields['x-amz-meta-file-id'];
  }

  beforeAll(async () => {
    client = deployment.client();
    otherOrg = deployment.client((await deployment.createOrg()).key);
    anonymous = api(deployment.url);
  });

  describe('upload permission (GET /chat/files/upload)', () => {
    it('answers {url, fields} with the key and the file id, routed past GET /chat/{thread_id}', async () => {
      const response = await client.get('/chat/files/upload?filename=report.csv&mimetype=text/csv');
      expect(response.status).toBe(200);
      expect(Object.keys(response.body).sort()).toEqual(['fields', 'url']);
      expect(response.body.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
      expect(response.body.url.startsWith(deployment.url)).toBe(false);
      expect(response.body.fields.key).toEqual(expect.any(String));
      expect(response.body.fields['x-amz-meta-file-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(response.body.fields['Content-Type']).toBe('text/csv');
      const policy = JSON.parse(Buffer.from(response.body.fields.Policy, 'base64').toString());
      expect(policy.conditions).toContainEqual(['content-length-range', 0, UPLOAD_MAX_BYTES]);
    });

    it('needs the service token', async () => {
      expect((await anonymous.get('/chat/files/upload?filename=a.txt&mimetype=text/plain')).status).toBe(401);
    });

    it.each([
      ['no filename', 'mimetype=text/plain', ['query', 'filename'], 'missing'],
      [
        'an empty filename',
        'filename=&mimetype=text/plain',
        ['query', 'filename'],
        'string_pattern_mismatch',
      ],
      [
        'a filename with a slash',
        'filename=a%2Fb.txt&mimetype=text/plain',
        ['query', 'filename'],
        'string_pattern_mismatch',
      ],
      [
        'a filename of 256 characters',
        `filename=${'a'.repeat(256)}&mimetype=text/plain`,
        ['query', 'filename'],
        'string_too_long',
      ],
      ['no media type', 'filename=a.txt', ['query', 'mimetype'], 'missing'],
      [
        'a media type without a subtype',
        'filename=a.txt&mimetype=text',
        ['query', 'mimetype'],
        'string_pattern_mismatch',
      ],
      [
        'a media type with parameters',
        'filename=a.txt&mimetype=text/plain;%20charset=utf-8',
        ['query', 'mimetype'],
        'string_pattern_mismatch',
      ],
    ])('answers 422 for %s', async (_case, query, loc, type) => {
      const response = await client.get(`/chat/files/upload?${query}`);
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([expect.objectContaining({ loc, type })]);
    });

    it('accepts a filename of exactly 255 characters', async () => {
      const name = `${'n'.repeat(251)}.txt`;
      const response = await client.get(`/chat/files/upload?filename=${name}&mimetype=text/plain`);
      expect(response.status).toBe(200);
    });
  });

  describe('the upload itself (the storage host)', () => {
    it('takes the form without the token and the file then reads back byte for byte', async () => {
      const body = Buffer.from('col1,col2\n1,2\nünï,çødé\n');
      const id = await uploaded(body, 'table.csv', 'text/csv');
      const file = await client.get(`/chat/files/${id}`);
      expect(file.status).toBe(200);
      expect(Object.keys(file.body).sort()).toEqual(FILE_FIELDS);
      expect(file.body).toMatchObject({
        id,
        name: 'table.csv',
        size: body.length,
        mimetype: 'text/csv',
        origin: 'user',
        share_links: [],
      });
      const download = await fetch(file.body.url);
      expect(download.status).toBe(200);
      expect((await bytesOf(download)).equals(body)).toBe(true);
      expect(download.headers.get('content-disposition')).toContain('table.csv');
    });

    it('refuses a file over UPLOAD_MAX_BYTES at the storage host; the file stays unknown', async () => {
      const permission = await client.get<Permission>(
        '/chat/files/upload?filename=big.bin&mimetype=application/octet-stream',
      );
      const response = await upload(permission.body, Buffer.alloc(UPLOAD_MAX_BYTES + 1, 7));
      expect(response.status).toBe(413);
      expect((await client.get(`/chat/files/${permission.body.fields['x-amz-meta-file-id']}`)).status).toBe(
        404,
      );
    });

    it('refuses an expired permission', async () => {
      const permission = await client.get<Permission>(
        '/chat/files/upload?filename=a.txt&mimetype=text/plain',
      );
      const policy = JSON.parse(Buffer.from(permission.body.fields.Policy, 'base64').toString());
      policy.expiration = new Date(Date.now() - 1000).toISOString();
      const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
      // Signed with the deployment's own secret: only the expiry is wrong.
      const signature = createHmac('sha256', STORAGE_SIGNING_SECRET).update(encoded).digest('hex');
      const response = await upload(
        {
          ...permission.body,
          fields: { ...permission.body.fields, Policy: encoded, 'X-Amz-Signature': signature },
        },
        Buffer.from('too late'),
      );
      expect(response.status).toBe(403);
    });

    it('refuses a tampered permission (another key, or a changed policy)', async () => {
      const permission = await client.get<Permission>(
        '/chat/files/upload?filename=a.txt&mimetype=text/plain',
      );
      const otherKey = { ...permission.body.fields, key: `${permission.body.fields.key}-x` };
      expect((await upload({ ...permission.body, fields: otherKey }, Buffer.from('x'))).status).toBe(403);
      const policy = JSON.parse(Buffer.from(permission.body.fields.Policy, 'base64').toString());
      policy.expiration = new Date(Date.now() + 86_400_000).toISOString();
      const longer = {
        ...permission.body.fields,
        Policy: Buffer.from(JSON.stringify(policy)).toString('base64'),
      };
      expect((await upload({ ...permission.body, fields: longer }, Buffer.from('x'))).status).toBe(403);
      expect((await client.get(`/chat/files/${permission.body.fields['x-amz-meta-file-id']}`)).status).toBe(
        404,
      );
    });

    it('refuses another content type than the one permitted', async () => {
      const permission = await client.get<Permission>(
        '/chat/files/upload?filename=a.txt&mimetype=text/plain',
      );
      const html = { ...permission.body.fields, 'Content-Type': 'text/html' };
      expect((await upload({ ...permission.body, fields: html }, Buffer.from('<script>'))).status).toBe(403);
    });
  });

  describe('whose files', () => {
    it('answers 404 for a file of another end user or another organization', async () => {
      const id = await uploaded(Buffer.from('alice only'), 'a.txt', 'text/plain', 'alice');
      expect((await client.get(`/chat/files/${id}?user_id=alice`)).status).toBe(200);
      expect((await client.get(`/chat/files/${id}?user_id=bob`)).status).toBe(404);
      expect((await otherOrg.get(`/chat/files/${id}`)).status).toBe(404);
      expect((await client.post(`/chat/files/${id}/share_links?user_id=bob`, {})).status).toBe(404);
      expect((await otherOrg.post(`/chat/files/${id}/share_links`, {})).status).toBe(404);
    });
  });

  describe('share links', () => {
    let fileId: string;
    const content = Buffer.from('shared bytes\n');

    beforeAll(async () => {
      fileId = await uploaded(content, 'shared.txt', 'text/plain', 'carol');
    });

    const create = (body: Record<string, unknown> = {}) =>
      client.post(`/chat/files/${fileId}/share_links?user_id=carol`, body);
    const linksOf = async () => (await client.get(`/chat/files/${fileId}?user_id=carol`)).body.share_links;

    it('creates a link with exactly the fields of spec 2.6, downloadable without the token', async () => {
      const created = await create();
      expect(created.status).toBe(200);
      expect(Object.keys(created.body).sort()).toEqual(LINK_FIELDS);
      expect(created.body).toMatchObject({
        access_count: 0,
        last_accessed_at: null,
        revoked: false,
        expires_at: null,
        expired: false,
        protected: false,
        url: `${deployment.url}/share/${created.body.id}`,
      });
      const download = await fetch(created.body.url);
      expect(download.status).toBe(200);
      expect((await bytesOf(download)).equals(content)).toBe(true);
      expect(download.headers.get('content-type')).toContain('text/plain');
    });

    it('counts every one of many concurrent downloads', async () => {
      const link = (await create()).body;
      const downloads = await Promise.all(Array.from({ length: 25 }, () => fetch(link.url)));
      expect(downloads.map((d) => d.status)).toEqual(Array(25).fill(200));
      await Promise.all(downloads.map((d) => d.arrayBuffer()));
      const listed = (await linksOf()).find((l: { id: string }) => l.id === link.id);
      expect(listed.access_count).toBe(25);
      expect(Date.parse(listed.last_accessed_at)).toBeGreaterThanOrEqual(Date.parse(link.created_at));
    });

    it('revokes a link: 204, then 410 on download, and it stays listed as revoked', async () => {
      const link = (await create()).body;
      const revoked = await client.delete(`/chat/files/${fileId}/share_links/${link.id}?user_id=carol`);
      expect(revoked.status).toBe(204);
      expect((await fetch(link.url)).status).toBe(410);
      const listed = (await linksOf()).find((l: { id: string }) => l.id === link.id);
      expect(listed).toMatchObject({ revoked: true, access_count: 0 });
      expect((await client.delete(`/chat/files/${fileId}/share_links/${link.id}?user_id=dave`)).status).toBe(
        404,
      );
      expect((await otherOrg.delete(`/chat/files/${fileId}/share_links/${link.id}`)).status).toBe(404);
    });

    it('expires a link: works until expires_at, then 410 and expired true', async () => {
      const expiresAt = new Date(Date.now() + 1500).toISOString();
      const link = (await create({ expires_at: expiresAt })).body;
      expect(link).toMatchObject({ expires_at: expiresAt, expired: false });
      expect((await fetch(link.url)).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 100));
      expect((await fetch(link.url)).status).toBe(410);
      const listed = (await linksOf()).find((l: { id: string }) => l.id === link.id);
      expect(listed).toMatchObject({ expired: true, access_count: 1 });
    });

    it('wants the password of a protected link: 401 without, 403 wrong, the bytes when right', async () => {
      const link = (await create({ password: 's3cret pass', expires_at: null })).body;
      expect(link.protected).toBe(true);
      expect((await fetch(link.url)).status).toBe(401);
      expect((await fetch(link.url, { headers: { 'x-share-password': 'wrong' } })).status).toBe(403);
      const right = await fetch(link.url, { headers: { 'x-share-password': 's3cret pass' } });
      expect(right.status).toBe(200);
      expect((await bytesOf(right)).equals(content)).toBe(true);
      const listed = (await linksOf()).find((l: { id: string }) => l.id === link.id);
      expect(listed.access_count).toBe(1);
    });

    it.each([
      ['a past expires_at', { expires_at: '2001-01-01T00:00:00Z' }, ['body', 'expires_at'], 'value_error'],
      [
        'an expires_at that is not a date-time',
        { expires_at: 'tomorrow' },
        ['body', 'expires_at'],
        'datetime_from_date_parsing',
      ],
      ['an empty password', { password: '' }, ['body', 'password'], 'string_too_short'],
      ['a password that is not a string', { password: 12 }, ['body', 'password'], 'string_type'],
    ])('answers 422 for %s', async (_case, body, loc, type) => {
      const response = await create(body);
      expect(response.status).toBe(422);
      expect(response.body.detail).toEqual([expect.objectContaining({ loc, type })]);
    });

    it('answers 404 for an unknown link', async () => {
      expect((await anonymous.get('/share/0190a0b0-0000-7000-8000-000000000000')).status).toBe(404);
      expect((await anonymous.get('/share/not-a-link')).status).toBe(404);
    });
  });

  it('documents the routes in the OpenAPI document', async () => {
    const document = await anonymous.get('/openapi.json');
    expect(document.status).toBe(200);
    const upload = document.body.paths['/chat/files/upload'].get;
    expect(upload.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['filename', 'mimetype', 'user_id']),
    );
    expect(document.body.paths['/chat/files/{file_id}/share_links'].post).toBeDefined();
    expect(document.body.paths['/chat/files/{file_id}/share_links/{link_id}'].delete).toBeDefined();
    expect(document.body.paths['/share/{link_id}'].get.security).toEqual([]);
  });

  it('closes the embedded storage host when the gateway stops', async () => {
    const permission = await client.get<Permission>('/chat/files/upload?filename=a.txt&mimetype=text/plain');
    expect((await upload(permission.body, Buffer.from('before'))).status).toBe(204);
    expect(await deployment.gateway.stop()).toBe(0);
    await expect(upload(permission.body, Buffer.from('after'))).rejects.toThrow();
  });
});
