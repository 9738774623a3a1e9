import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FastifyInstance } from 'fastify';
import { v7 as uuidv7 } from 'uuid';
import { LocalDiskDriver, PresignedUpload, signPolicy } from '@app/storage';
import { buildStorageHost } from '../../../apps/gateway/src/storage-host/storage-host';
import { freePort } from '../../support/processes';
import { postForm } from '../storage/upload-form';

/** The embedded storage host enforces every condition of the policy itself (S3's rules for browser POST). */
const MAX_BYTES = 1024;
const SECRET = 'storage-host-test-secret';

let dir: string;
let host: FastifyInstance;
let driver: LocalDiskDriver;
let base: string;
/** Keys whose file the service no longer records (erased): their permissions store nothing. */
const erased = new Set<string>();

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parley-host-'));
  const port = await freePort();
  host = await buildStorageHost({
    dir,
    signingSecret: SECRET,
    maxBytes: MAX_BYTES,
    isRecorded: (key) => Promise.resolve(!erased.has(key)),
  });
  await host.listen({ port, host: '127.0.0.1' });
  base = `http://127.0.0.1:${port}`;
  driver = new LocalDiskDriver({ dir, publicUrl: base, signingSecret: SECRET });
});

afterAll(async () => {
  await host.close();
  await rm(dir, { recursive: true, force: true });
});

const permission = (key = `uploads/org/${uuidv7()}`, contentType = 'text/plain') =>
  driver.presignUpload({ key, contentType, fileId: uuidv7(), maxBytes: MAX_BYTES, expiresInSeconds: 60 });

const withFields = (upload: PresignedUpload, fields: Record<string, string>): PresignedUpload => ({
  ...upload,
  fields: { ...upload.fields, ...fields },
});

describe('embedded storage host: uploads', () => {
  it('stores a file of exactly the size limit', async () => {
    const upload = await permission();
    expect((await postForm(upload, Buffer.alloc(MAX_BYTES, 1))).status).toBe(204);
    expect(await driver.head(upload.fields.key)).toEqual({ size: MAX_BYTES, contentType: 'text/plain' });
  });

  it('refuses the permission of a file erased since it was issued with 404, and keeps nothing', async () => {
    const upload = await permission();
    erased.add(upload.fields.key);
    const response = await postForm(upload, Buffer.from('after the erasure'));
    expect(response.status).toBe(404);
    expect(((await response.json()) as { code: string }).code).toBe('NoSuchKey');
    expect(await driver.head(upload.fields.key)).toBeNull();
  });

  it('refuses a file one byte over the limit with 413 and keeps nothing', async () => {
    const upload = await permission();
    const response = await postForm(upload, Buffer.alloc(MAX_BYTES + 1, 1));
    expect(response.status).toBe(413);
    expect(((await response.json()) as { code: string }).code).toBe('EntityTooLarge');
    expect(await driver.head(upload.fields.key)).toBeNull();
    expect(await readdir(join(dir, '.tmp'))).toEqual([]);
  });

  it('refuses a body far over the limit before reading it', async () => {
    const upload = await permission();
    const response = await postForm(upload, Buffer.alloc(MAX_BYTES + 200 * 1024, 1)).catch(() => null);
    // Either the 413 arrives, or the connection is cut while the client still sends: never a 204.
    if (response) expect(response.status).toBe(413);
    expect(await driver.head(upload.fields.key)).toBeNull();
  });

  it('refuses an expired permission with 403', async () => {
    const key = `uploads/org/${uuidv7()}`;
    const signed = signPolicy(SECRET, {
      expiration: new Date(Date.now() - 1000).toISOString(),
      conditions: [{ key }, { 'Content-Type': 'text/plain' }, ['content-length-range', 0, MAX_BYTES]],
    });
    const upload = await permission(key);
    const expired = withFields(upload, { Policy: signed.policy, 'X-Amz-Signature': signed.signature });
    delete expired.fields['x-amz-meta-file-id'];
    const response = await postForm(expired, Buffer.from('late'));
    expect(response.status).toBe(403);
    expect(((await response.json()) as { detail: string }).detail).toContain('expired');
    expect(await driver.head(key)).toBeNull();
  });

  it.each([
    [
      'a policy signed with another secret',
      (u: PresignedUpload) =>
        withFields(u, {
          'X-Amz-Signature': signPolicy(
            'another-secret-value',
            JSON.parse(Buffer.from(u.fields.Policy, 'base64').toString()),
          ).signature,
        }),
    ],
    ['a forged signature', (u: PresignedUpload) => withFields(u, { 'X-Amz-Signature': '0'.repeat(64) })],
    ['another key', (u: PresignedUpload) => withFields(u, { key: `uploads/org/${uuidv7()}` })],
    ['another content type', (u: PresignedUpload) => withFields(u, { 'Content-Type': 'text/html' })],
    ['another file id', (u: PresignedUpload) => withFields(u, { 'x-amz-meta-file-id': uuidv7() })],
    ['a field the policy does not name', (u: PresignedUpload) => withFields(u, { 'x-amz-meta-other': 'x' })],
    [
      'a widened size range',
      (u: PresignedUpload) => {
        const policy = JSON.parse(Buffer.from(u.fields.Policy, 'base64').toString());
        policy.conditions[3] = ['content-length-range', 0, 10 ** 9];
        return withFields(u, { Policy: Buffer.from(JSON.stringify(policy)).toString('base64') });
      },
    ],
  ])('refuses %s with 403', async (_case, tamper) => {
    const upload = await permission();
    const response = await postForm(tamper(upload), Buffer.from('hello'));
    expect(response.status).toBe(403);
    expect(await driver.head(upload.fields.key)).toBeNull();
  });

  it('refuses a form without its policy, and one without a file', async () => {
    const upload = await permission();
    const { Policy: _policy, ...fields } = upload.fields;
    expect((await postForm({ ...upload, fields }, Buffer.from('x'))).status).toBe(403);

    const form = new FormData();
    for (const [name, value] of Object.entries(upload.fields)) form.append(name, value);
    expect((await fetch(upload.url, { method: 'POST', body: form })).status).toBe(400);
    expect(await driver.head(upload.fields.key)).toBeNull();
  });
});

describe('embedded storage host: downloads', () => {
  it('refuses an expired or altered address and answers 404 for a missing object', async () => {
    const key = `uploads/org/${uuidv7()}`;
    await driver.put(key, Buffer.from('bytes'), 'text/plain');
    const options = { filename: 'a.txt', contentType: 'text/plain', size: 5 };

    const good = new URL(await driver.downloadUrl(key, { ...options, expiresInSeconds: 60 }));
    expect((await fetch(good)).status).toBe(200);

    const renamed = new URL(good);
    renamed.searchParams.set('type', 'text/html');
    expect((await fetch(renamed)).status).toBe(403);

    const expired = new URL(await driver.downloadUrl(key, { ...options, expiresInSeconds: -1 }));
    expect((await fetch(expired)).status).toBe(403);

    const missing = await driver.downloadUrl(`uploads/org/${uuidv7()}`, { ...options, expiresInSeconds: 60 });
    expect((await fetch(missing)).status).toBe(404);

    // Signed for another size than the object's: refused, never served with a false content-length.
    const otherSize = await driver.downloadUrl(key, { ...options, size: 3, expiresInSeconds: 60 });
    expect((await fetch(otherSize)).status).toBe(409);
  });

  it('uses an upload permission once: a second post is refused and the first bytes stay', async () => {
    const upload = await permission();
    expect((await postForm(upload, Buffer.from('first'))).status).toBe(204);
    const again = await postForm(upload, Buffer.from('second, longer'));
    expect(again.status).toBe(403);
    expect(await driver.head(upload.fields.key)).toMatchObject({ size: 5 });
  });

  it('takes exactly one of many concurrent posts of one permission', async () => {
    const upload = await permission();
    const posts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => postForm(upload, Buffer.from(`body number ${i}`))),
    );
    expect(posts.map((p) => p.status).sort()).toEqual([204, ...Array(7).fill(403)]);
  });
});
