import { Readable } from 'node:stream';
import {
  FILE_ID_FIELD,
  DownloadUrlOptions,
  PresignedUpload,
  SealedObject,
  StorageDriver,
  StoredObject,
  UploadPolicyInput,
} from './storage-driver';
import { LocalDiskStore } from './local-disk.store';
import { LOCAL_ALGORITHM, signDownload, signPolicy } from './local-signing';

interface LocalDiskDriverOptions {
  dir: string;
  /** Address of the embedded storage host as clients reach it. */
  publicUrl: string;
  signingSecret: string;
}

/** Files on local disk, uploaded and downloaded through the gateway's embedded storage host. */
export class LocalDiskDriver extends StorageDriver {
  readonly store: LocalDiskStore;
  private readonly publicUrl: string;

  constructor(private readonly options: LocalDiskDriverOptions) {
    super();
    this.store = new LocalDiskStore(options.dir);
    this.publicUrl = options.publicUrl.replace(/\/+$/, '');
  }

  /** The key the embedded storage host verifies this driver's signatures with. */
  get signingSecret(): string {
    return this.options.signingSecret;
  }

  async presignUpload(input: UploadPolicyInput): Promise<PresignedUpload> {
    const expiration = new Date(Date.now() + input.expiresInSeconds * 1000).toISOString();
    const { policy, signature } = signPolicy(this.options.signingSecret, {
      expiration,
      conditions: [
        { key: input.key },
        { 'Content-Type': input.contentType },
        { [FILE_ID_FIELD]: input.fileId },
        ['content-length-range', 0, input.maxBytes],
      ],
    });
    return {
      url: `${this.publicUrl}/upload`,
      fields: {
        key: input.key,
        'Content-Type': input.contentType,
        [FILE_ID_FIELD]: input.fileId,
        'X-Amz-Algorithm': LOCAL_ALGORITHM,
        Policy: policy,
        'X-Amz-Signature': signature,
      },
    };
  }

  head(key: string): Promise<StoredObject | null> {
    return this.store.head(key);
  }

  /** The embedded host writes a key once (a permission is single-use): the upload is final where it is. */
  async seal(key: string): Promise<SealedObject | null> {
    const stored = await this.store.head(key);
    return stored ? { key, ...stored } : null;
  }

  read(key: string): Promise<Readable | null> {
    return this.store.read(key);
  }

  put(key: string, body: Buffer, contentType: string): Promise<void> {
    return this.store.write(key, body, contentType);
  }

  delete(key: string): Promise<void> {
    return this.store.delete(key);
  }

  async downloadUrl(key: string, options: DownloadUrlOptions): Promise<string> {
    const expires = Math.floor(Date.now() / 1000) + options.expiresInSeconds;
    const grant = { key, expires, name: options.filename, type: options.contentType, size: options.size };
    const query = new URLSearchParams({
      expires: String(expires),
      name: grant.name,
      type: grant.type,
      size: String(grant.size),
      signature: signDownload(this.options.signingSecret, grant),
    });
    return `${this.publicUrl}/files/${key}?${query.toString()}`;
  }
}
