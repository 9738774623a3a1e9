import {
  CopyObjectCommand,
  CreateBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ClientConfig,
} from '@aws-sdk/client-s3';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { Readable } from 'node:stream';
import { attachmentDisposition } from './content-disposition';
import {
  DownloadUrlOptions,
  FILE_ID_FIELD,
  PresignedUpload,
  SealedObject,
  StorageDriver,
  StoredObject,
  UploadPolicyInput,
} from './storage-driver';

interface S3DriverOptions {
  bucket: string;
  region: string;
  endpoint?: string;
  /** The endpoint as clients reach it (presigned addresses are signed for it); defaults to `endpoint`. */
  publicEndpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  forcePathStyle: boolean;
}

/** Where a sealed upload is copied: no upload permission ever names a key under it. */
const SEALED_PREFIX = 'sealed/';
/** A re-post racing the copy changes the ETag: the copy is tried again on the new object this often. */
const SEAL_ATTEMPTS = 3;

const isPreconditionFailed = (error: unknown): boolean => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return failure.name === 'PreconditionFailed' || failure.$metadata?.httpStatusCode === 412;
};

const isNotFound = (error: unknown): boolean => {
  const failure = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return (
    failure.name === 'NotFound' || failure.name === 'NoSuchKey' || failure.$metadata?.httpStatusCode === 404
  );
};

/**
 * An S3-compatible bucket (AWS, MinIO): browser POST uploads, presigned GET downloads. S3 cannot make a POST
 * policy single-use, so a finished upload is sealed: copied (pinned to the ETag the service looked at) to a
 * key under `sealed/` that no permission names, and the upload key deleted. The file then records and serves
 * the sealed copy; a later post with the same permission lands at the old key, which nothing reads.
 */
export class S3Driver extends StorageDriver {
  private readonly client: S3Client;
  /** Signs the addresses handed to clients; only differs from `client` by its endpoint. */
  private readonly publicClient: S3Client;

  constructor(private readonly options: S3DriverOptions) {
    super();
    // The pinned SDK runs on Node 20 (its engines say >=20); its start-up notice is about releases after January
    // 2027, which the lock file does not take. The SDK's documented switch; an operator's own value is kept.
    // eslint-disable-next-line no-restricted-syntax -- the SDK reads its switch there; not one of our settings
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
    const config = (endpoint?: string): S3ClientConfig => ({
      region: options.region,
      endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? { accessKeyId: options.accessKeyId, secretAccessKey: options.secretAccessKey }
          : undefined,
    });
    this.client = new S3Client(config(options.endpoint));
    this.publicClient = new S3Client(config(options.publicEndpoint ?? options.endpoint));
  }

  async presignUpload(input: UploadPolicyInput): Promise<PresignedUpload> {
    const { url, fields } = await createPresignedPost(this.publicClient, {
      Bucket: this.options.bucket,
      Key: input.key,
      Conditions: [
        ['content-length-range', 0, input.maxBytes],
        { 'Content-Type': input.contentType },
        { [FILE_ID_FIELD]: input.fileId },
      ],
      Fields: { 'Content-Type': input.contentType, [FILE_ID_FIELD]: input.fileId },
      Expires: input.expiresInSeconds,
    });
    return { url, fields };
  }

  async head(key: string): Promise<StoredObject | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async seal(key: string): Promise<SealedObject | null> {
    if (key.startsWith(SEALED_PREFIX)) return this.sealedObject(key);
    const sealedKey = `${SEALED_PREFIX}${key}`;
    for (let attempt = 1; ; attempt++) {
      const upload = await this.headWithTag(key);
      // Already sealed by a concurrent completion, which also deleted the upload.
      if (!upload) return this.sealedObject(sealedKey);
      try {
        await this.client.send(
          new CopyObjectCommand({
            Bucket: this.options.bucket,
            Key: sealedKey,
            CopySource: `${this.options.bucket}/${encodeURIComponent(key).replace(/%2F/g, '/')}`,
            CopySourceIfMatch: upload.etag,
          }),
        );
      } catch (error) {
        if (isPreconditionFailed(error) && attempt < SEAL_ATTEMPTS) continue;
        if (isNotFound(error)) return this.sealedObject(sealedKey);
        throw error;
      }
      await this.delete(key);
      return this.sealedObject(sealedKey);
    }
  }

  private async sealedObject(key: string): Promise<SealedObject | null> {
    const stored = await this.head(key);
    return stored ? { key, ...stored } : null;
  }

  private async headWithTag(key: string): Promise<{ etag: string } | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return { etag: head.ETag ?? '' };
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async read(key: string): Promise<Readable | null> {
    try {
      const object = await this.client.send(new GetObjectCommand({ Bucket: this.options.bucket, Key: key }));
      return object.Body as Readable;
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(
      new PutObjectCommand({ Bucket: this.options.bucket, Key: key, Body: body, ContentType: contentType }),
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.options.bucket, Key: key }));
  }

  downloadUrl(key: string, options: DownloadUrlOptions): Promise<string> {
    return getSignedUrl(
      this.publicClient,
      new GetObjectCommand({
        Bucket: this.options.bucket,
        Key: key,
        ResponseContentType: options.contentType,
        ResponseContentDisposition: attachmentDisposition(options.filename),
      }),
      { expiresIn: options.expiresInSeconds },
    );
  }

  /** Creates the bucket when it does not exist yet (a fresh MinIO). */
  override async prepare(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.options.bucket }));
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await this.client.send(new CreateBucketCommand({ Bucket: this.options.bucket }));
    }
  }

  override close(): void {
    this.client.destroy();
    this.publicClient.destroy();
  }
}
