import { createHmac } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { FastifyInstance } from 'fastify';
import S3rver from 's3rver';
import { v7 as uuidv7 } from 'uuid';
import { FILE_ID_FIELD, LocalDiskDriver, StorageDriver } from '@app/storage';
import { S3Driver } from '../../../libs/storage/src/s3.driver';
import { buildStorageHost } from '../../../apps/gateway/src/storage-host/storage-host';
import { freePort } from '../../support/processes';
import { postForm } from './upload-form';

/**
 * One suite, both drivers (issue 8): the local-disk driver with its embedded host, and the S3 driver against
 * s3rver, an S3-compatible server started here on a free port. s3rver checks signatures but not policy
 * conditions, so the size and expiry rules are tested on the local host (storage-host.int-spec.ts) and, for
 * S3, by decoding the signed policy.
 */
const MAX_BYTES = 1024;
const SECRET = 'storage-driver-test-secret';

const readAll = async (stream: Readable): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

interface Harness {
  driver: StorageDriver;
  stop(): Promise<void>;
}

async function localHarness(): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-local-'));
  const port = await freePort();
  const host: FastifyInstance = await buildStorageHost({
    dir,
    signingSecret: SECRET,
    maxBytes: MAX_BYTES,
    isRecorded: () => Promise.resolve(true),
  });
  await host.listen({ port, host: '127.0.0.1' });
  const driver = new LocalDiskDriver({ dir, publicUrl: `http://127.0.0.1:${port}`, signingSecret: SECRET });
  return {
    driver,
    stop: async () => {
      await host.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

async function s3Harness(): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'parley-s3rver-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory: dir });
  await server.run();
  const driver = new S3Driver({
    bucket: 'parley-test',
    region: 'us-east-1',
    endpoint: `http://127.0.0.1:${port}`,
    accessKeyId: 'S3RVER',
    secretAccessKey: 'S3RVER',
    forcePathStyle: true,
  });
  // As the gateway does on start: a fresh server has no bucket yet.
  await driver.prepare();
  await driver.prepare();
  return {
    driver,
    stop: async () => {
      driver.close();
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe.each([
  ['local disk', localHarness],
  ['S3 (s3rver)', s3Harness],
])('storage driver: %s', (_name, makeHarness) => {
  let harness: Harness;
  const keyOf = () => `uploads/org/${uuidv7()}`;

  beforeAll(async () => {
    harness = await makeHarness();
  });
  afterAll(async () => {
    await harness?.stop();
  });

  it('takes a presigned POST without any token (204) and then reports the real size and type', async () => {
    const key = keyOf();
    const fileId = uuidv7();
    const upload = await harness.driver.presignUpload({
      key,
      contentType: 'text/csv',
      fileId,
      maxBytes: MAX_BYTES,
      expiresInSeconds: 60,
    });
    expect(upload.fields.key).toBe(key);
    expect(upload.fields[FILE_ID_FIELD]).toBe(fileId);
    expect(upload.fields['Content-Type']).toBe('text/csv');

    const body = Buffer.from('a,b\n1,2\n');
    const response = await postForm(upload, body, 'table.csv');
    expect(response.status).toBe(204);

    expect(await harness.driver.head(key)).toEqual({ size: body.length, contentType: 'text/csv' });
    const stream = await harness.driver.read(key);
    expect(stream).not.toBeNull();
    expect((await readAll(stream!)).equals(body)).toBe(true);
  });

  it('signs a policy that pins the key, the content type, the file id, the size range and the expiry', async () => {
    const before = Date.now();
    const upload = await harness.driver.presignUpload({
      key: 'uploads/org/pinned',
      contentType: 'application/pdf',
      fileId: 'the-file-id',
      maxBytes: MAX_BYTES,
      expiresInSeconds: 120,
    });
    const policy = JSON.parse(Buffer.from(upload.fields.Policy, 'base64').toString('utf8')) as {
      expiration: string;
      conditions: unknown[];
    };
    const expiration = Date.parse(policy.expiration);
    expect(expiration).toBeGreaterThanOrEqual(before + 119_000);
    expect(expiration).toBeLessThanOrEqual(Date.now() + 121_000);
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['content-length-range', 0, MAX_BYTES],
        { 'Content-Type': 'application/pdf' },
        { [FILE_ID_FIELD]: 'the-file-id' },
      ]),
    );
    expect(policy.conditions.some((c) => JSON.stringify(c).includes('uploads/org/pinned'))).toBe(true);
  });

  it('serves a signed download address without any token', async () => {
    const key = keyOf();
    const body = Buffer.from('download me: ünïcode');
    await harness.driver.put(key, body, 'text/plain');
    const url = await harness.driver.downloadUrl(key, {
      expiresInSeconds: 60,
      filename: 'résumé notes.txt',
      contentType: 'text/plain',
      size: body.length,
    });
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(body)).toBe(true);
    expect(response.headers.get('content-disposition')).toContain("filename*=UTF-8''r%C3%A9sum%C3%A9");
    expect(response.headers.get('content-type')).toContain('text/plain');
  });

  it('seals a finished upload: a second post with the same permission never changes the sealed bytes', async () => {
    const key = keyOf();
    const upload = await harness.driver.presignUpload({
      key,
      contentType: 'text/plain',
      fileId: uuidv7(),
      maxBytes: MAX_BYTES,
      expiresInSeconds: 60,
    });
    const first = Buffer.from('the bytes that were recorded');
    expect((await postForm(upload, first)).status).toBe(204);
    const sealed = await harness.driver.seal(key);
    expect(sealed).toMatchObject({ size: first.length, contentType: 'text/plain' });
    // The local host refuses the reuse (403); S3 takes it at the upload key, which nothing reads any more.
    const again = await postForm(upload, Buffer.from('replaced by a later post, and longer'));
    expect([204, 403]).toContain(again.status);
    expect(await harness.driver.seal(sealed!.key)).toEqual(sealed);
    expect((await readAll((await harness.driver.read(sealed!.key))!)).equals(first)).toBe(true);
    expect(await harness.driver.seal(keyOf())).toBeNull();
  });

  it('deletes an object', async () => {
    const key = keyOf();
    await harness.driver.put(key, Buffer.from('x'), 'text/plain');
    expect(await harness.driver.head(key)).not.toBeNull();
    await harness.driver.delete(key);
    expect(await harness.driver.head(key)).toBeNull();
    expect(await harness.driver.read(key)).toBeNull();
  });
});

/**
 * s3rver checks neither policy conditions nor SigV4 signatures, so the S3 driver's signatures are checked here
 * by recomputing them (AWS SigV4 for browser POST: HMAC of the base64 policy with the derived signing key).
 * The local host's own refusals are in storage-host.int-spec.ts.
 */
describe('S3 driver signatures', () => {
  const driver = new S3Driver({
    bucket: 'parley-test',
    region: 'eu-west-3',
    endpoint: 'http://127.0.0.1:9',
    publicEndpoint: 'https://files.example.com',
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret-for-signing',
    forcePathStyle: true,
  });
  afterAll(() => driver.close());

  const hmac = (key: Buffer | string, text: string) => createHmac('sha256', key).update(text).digest();

  it('signs the POST policy with SigV4 for the bucket on the public endpoint', async () => {
    const upload = await driver.presignUpload({
      key: 'uploads/org/file',
      contentType: 'text/plain',
      fileId: 'file',
      maxBytes: MAX_BYTES,
      expiresInSeconds: 60,
    });
    expect(upload.url).toBe('https://files.example.com/parley-test');
    const [, date, region, service] = upload.fields['X-Amz-Credential'].split('/');
    expect([region, service]).toEqual(['eu-west-3', 's3']);
    let key = hmac(`AWS4secret-for-signing`, date);
    for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
    const expected = createHmac('sha256', key).update(upload.fields.Policy).digest('hex');
    expect(upload.fields['X-Amz-Signature']).toBe(expected);
    // A policy changed by the client no longer matches its signature.
    const widened = Buffer.from(
      Buffer.from(upload.fields.Policy, 'base64').toString().replace(`${MAX_BYTES}]`, '1000000000]'),
    ).toString('base64');
    expect(createHmac('sha256', key).update(widened).digest('hex')).not.toBe(expected);
  });

  it('presigns downloads for the configured time with the file name and type', async () => {
    const url = new URL(
      await driver.downloadUrl('uploads/org/file', {
        expiresInSeconds: 300,
        filename: 'report.pdf',
        contentType: 'application/pdf',
        size: 10,
      }),
    );
    expect(url.origin).toBe('https://files.example.com');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('response-content-type')).toBe('application/pdf');
    expect(url.searchParams.get('response-content-disposition')).toContain('report.pdf');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });
});
