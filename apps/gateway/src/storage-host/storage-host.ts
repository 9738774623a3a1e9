import fastifyMultipart, { MultipartFile } from '@fastify/multipart';
import Fastify, { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { Transform, Writable } from 'node:stream';
import {
  attachmentDisposition,
  DOWNLOAD_HEADERS,
  downloadSigningText,
  FILE_ID_FIELD,
  isValidKey,
  LOCAL_ALGORITHM,
  LocalDiskStore,
  ObjectExistsError,
  PolicyCondition,
  UploadPolicy,
  verifySignature,
} from '@app/storage';

interface StorageHostOptions {
  dir: string;
  signingSecret: string;
  /** Largest object any policy may allow; a body far beyond it is refused before it is read. */
  maxBytes: number;
  /**
   * Whether the service still records a file at the key: an upload permission issued before its file was erased
   * (CONTRACTS §21) stores nothing, and bytes that land while the erasure runs are removed.
   */
  isRecorded: (key: string) => Promise<boolean>;
}

/** Room for the form's fields and multipart framing on top of the file itself. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
/** Fields the signature covers itself; every other field must be named by a policy condition (as S3 does). */
const SIGNATURE_FIELDS = ['policy', 'x-amz-signature', 'x-amz-algorithm'];

class Refusal extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const permissionUsed = () => new Refusal(403, 'AccessDenied', 'This upload permission has already been used');
const noSuchFile = () => new Refusal(404, 'NoSuchKey', 'The file of this upload permission no longer exists');

const drain = (file: MultipartFile): Promise<void> =>
  pipeline(file.file, new Writable({ write: (_chunk, _encoding, done) => done() }));

/** Checks a form against its signed policy; the form's field names are lower-cased. */
function verifyForm(
  secret: string,
  form: Map<string, string>,
): { key: string; contentType: string; range: [number, number] } {
  const encoded = form.get('policy');
  const signature = form.get('x-amz-signature');
  if (!encoded || !signature) throw new Refusal(403, 'AccessDenied', 'Policy and signature are required');
  if (form.get('x-amz-algorithm') !== LOCAL_ALGORITHM) {
    throw new Refusal(400, 'InvalidArgument', `X-Amz-Algorithm must be ${LOCAL_ALGORITHM}`);
  }
  if (!verifySignature(secret, encoded, signature)) {
    throw new Refusal(403, 'SignatureDoesNotMatch', 'The policy signature does not match');
  }
  const policy = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as UploadPolicy;
  if (!(Date.parse(policy.expiration) > Date.now())) {
    throw new Refusal(403, 'AccessDenied', 'Invalid according to Policy: Policy expired');
  }
  let range: [number, number] | null = null;
  const covered = new Set(SIGNATURE_FIELDS);
  for (const condition of policy.conditions as PolicyCondition[]) {
    if (Array.isArray(condition)) {
      range = [condition[1], condition[2]];
      continue;
    }
    for (const [name, value] of Object.entries(condition)) {
      covered.add(name.toLowerCase());
      if (form.get(name.toLowerCase()) !== value) {
        throw new Refusal(
          403,
          'AccessDenied',
          `Invalid according to Policy: Policy Condition failed: ${name}`,
        );
      }
    }
  }
  const extra = [...form.keys()].find((name) => !covered.has(name));
  if (extra)
    throw new Refusal(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${extra}`);
  const key = form.get('key');
  if (!key || !isValidKey(key) || !range)
    throw new Refusal(403, 'AccessDenied', 'Invalid according to Policy');
  return { key, contentType: form.get('content-type') ?? 'application/octet-stream', range };
}

/**
 * The embedded storage host (STORAGE_DRIVER=local): its own listener, reached by clients without the
 * service token. POST /upload takes S3's browser-upload form (fields, then `file`) and stores the file when
 * the signed policy allows it (signature, expiry, key, content type, size range): 204. A permission is
 * single-use: its key is written once, and any later post with it is refused (403), so a file's bytes never
 * change after the service recorded them; a permission whose file the service no longer records (erased) is
 * refused (404), checked again once the bytes are stored. GET /files/<key> serves an object to whoever holds a signed,
 * unexpired address, exactly the size the address was signed for, or refuses.
 */
export async function buildStorageHost(options: StorageHostOptions): Promise<FastifyInstance> {
  const store = new LocalDiskStore(options.dir);
  const app = Fastify({ logger: false });
  await app.register(fastifyMultipart, {
    // One byte past the largest allowed file is enough to know it is too large; busboy drops the rest.
    limits: { files: 1, fields: 20, fieldSize: 16 * 1024, fileSize: options.maxBytes + 1 },
    throwFileSizeLimit: false,
  });

  // Nothing this host answers is meant to be rendered by a browser as a page of its own.
  app.addHook('onRequest', async (_request, reply) => {
    void reply.header('x-content-type-options', 'nosniff');
  });

  app.setErrorHandler((error: Error & { statusCode?: number }, _request, reply) => {
    if (error instanceof Refusal)
      return reply.status(error.status).send({ code: error.code, detail: error.message });
    const status = error.statusCode && error.statusCode < 500 ? error.statusCode : 400;
    return reply.status(status).send({ code: 'MalformedPOSTRequest', detail: error.message });
  });

  app.post('/upload', async (request: FastifyRequest, reply: FastifyReply) => {
    const length = Number(request.headers['content-length'] ?? 0);
    if (length > options.maxBytes + FORM_OVERHEAD_BYTES) {
      // Not worth reading: say so and drop the connection.
      void reply.header('connection', 'close');
      throw new Refusal(413, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    }
    if (!request.isMultipart())
      throw new Refusal(400, 'MalformedPOSTRequest', 'The body must be multipart/form-data');
    const form = new Map<string, string>();
    let refusal: Refusal | null = null;
    let stored = false;
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (!stored && !refusal) form.set(part.fieldname.toLowerCase(), String(part.value));
        continue;
      }
      if (stored || refusal || part.fieldname !== 'file') {
        await drain(part);
        continue;
      }
      try {
        await storeFile(store, options, form, part);
        stored = true;
      } catch (error) {
        if (!(error instanceof Refusal)) throw error;
        refusal = error;
      }
    }
    if (refusal) throw refusal;
    if (!stored) throw new Refusal(400, 'MalformedPOSTRequest', 'The form has no file field');
    return reply.status(204).send();
  });

  app.get('/files/*', async (request: FastifyRequest, reply: FastifyReply) => {
    const key = (request.params as { '*': string })['*'];
    const query = request.query as Record<string, string | undefined>;
    const grant = {
      key,
      expires: Number(query.expires),
      name: query.name ?? '',
      type: query.type ?? '',
      size: Number(query.size),
    };
    const signed =
      isValidKey(key) &&
      Number.isInteger(grant.expires) &&
      Number.isSafeInteger(grant.size) &&
      verifySignature(options.signingSecret, downloadSigningText(grant), query.signature ?? '');
    if (!signed) throw new Refusal(403, 'SignatureDoesNotMatch', 'The address signature does not match');
    if (grant.expires * 1000 <= Date.now()) throw new Refusal(403, 'AccessDenied', 'Request has expired');
    const object = await store.head(key);
    if (object && object.size !== grant.size) {
      throw new Refusal(409, 'InvalidObjectState', 'The stored object does not match the recorded file');
    }
    const body = object ? await store.read(key) : null;
    if (!object || !body) throw new Refusal(404, 'NoSuchKey', 'The specified key does not exist');
    return reply
      .headers(DOWNLOAD_HEADERS)
      .header('content-type', grant.type || object.contentType)
      .header('content-length', object.size)
      .header('content-disposition', attachmentDisposition(grant.name || key.split('/').pop()!))
      .send(body);
  });

  return app;
}

/** Verifies the form, then streams the file to disk, counting bytes against the policy's range. */
async function storeFile(
  store: LocalDiskStore,
  options: StorageHostOptions,
  form: Map<string, string>,
  part: MultipartFile,
): Promise<void> {
  let verified: ReturnType<typeof verifyForm>;
  try {
    verified = verifyForm(options.signingSecret, form);
  } catch (error) {
    await drain(part);
    throw error instanceof Refusal
      ? error
      : new Refusal(400, 'MalformedPOSTRequest', 'The policy is not valid');
  }
  if (!(await options.isRecorded(verified.key))) {
    await drain(part);
    throw noSuchFile();
  }
  if (await store.exists(verified.key)) {
    await drain(part);
    throw permissionUsed();
  }
  const [min, max] = verified.range;
  const temp = await store.tempPath();
  let size = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      // Past the limit the bytes are still read (so the answer reaches the client) but no longer kept.
      done(null, size > max ? undefined : chunk);
    },
  });
  try {
    await pipeline(part.file, counter, createWriteStream(temp));
    if (size > max || part.file.truncated) {
      throw new Refusal(413, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
    }
    if (size < min)
      throw new Refusal(
        400,
        'EntityTooSmall',
        'Your proposed upload is smaller than the minimum allowed size',
      );
    await store.commit(temp, verified.key, {
      size,
      contentType: verified.contentType,
      metadata: { 'file-id': form.get(FILE_ID_FIELD) ?? '' },
    });
    // Its file erased while the bytes came in: the erasure deleted the bytes before its rows, so they go here.
    if (!(await options.isRecorded(verified.key))) {
      await store.delete(verified.key);
      throw noSuchFile();
    }
  } catch (error) {
    // Two posts of one permission raced past the check above: the first to finish won.
    throw error instanceof ObjectExistsError ? permissionUsed() : error;
  } finally {
    await rm(temp, { force: true });
  }
}
