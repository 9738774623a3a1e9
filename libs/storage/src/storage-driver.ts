import { Readable } from 'node:stream';

/** What an upload permission allows: one object, one content type, a size range, until a deadline. */
export interface UploadPolicyInput {
  key: string;
  contentType: string;
  /** Stored with the object as `x-amz-meta-file-id`. */
  fileId: string;
  maxBytes: number;
  expiresInSeconds: number;
}

/** API-SPEC 2.12: the address to POST the form to, and the fields to send before `file`. */
export interface PresignedUpload {
  url: string;
  fields: Record<string, string>;
}

/** What the storage host knows of a stored object. */
export interface StoredObject {
  size: number;
  contentType: string;
}

/** A finished upload made final: where its bytes now stay, unchanged for the file's life. */
export interface SealedObject extends StoredObject {
  key: string;
}

export interface DownloadUrlOptions {
  expiresInSeconds: number;
  /** Offered to the browser as the download's file name. */
  filename: string;
  contentType: string;
  /** The size the service recorded for the file: a download never serves other bytes. */
  size: number;
}

/**
 * Where file bytes live. The service never proxies an upload: a client gets a presigned POST and sends the
 * bytes to the storage host itself; downloads go there through signed, time-limited addresses.
 * The abstract class is the injection token (STYLE §1, the boilerplate's repository ports).
 */
export abstract class StorageDriver {
  /** A presigned POST form (S3 browser-upload shape) for one object. */
  abstract presignUpload(input: UploadPolicyInput): Promise<PresignedUpload>;

  /** The object's size and content type, or null when nothing is stored at `key`. */
  abstract head(key: string): Promise<StoredObject | null>;

  /**
   * Makes a finished upload final (at file completion): afterwards no upload permission can change the bytes
   * the service records and serves. Null while nothing is stored at `key`.
   */
  abstract seal(key: string): Promise<SealedObject | null>;

  /** The object's bytes, or null when nothing is stored at `key`. */
  abstract read(key: string): Promise<Readable | null>;

  /** Stores bytes the service itself produced (an agent's file). */
  abstract put(key: string, body: Buffer, contentType: string): Promise<void>;

  abstract delete(key: string): Promise<void>;

  /** An address that answers the object's bytes without the service token until it expires. */
  abstract downloadUrl(key: string, options: DownloadUrlOptions): Promise<string>;

  /** Makes the store ready to take objects (a fresh bucket is created); the gateway calls it on start. */
  prepare(): Promise<void> {
    return Promise.resolve();
  }

  /** Lets go of what the driver holds (connections); called on shutdown. */
  close(): void {}
}

/**
 * Headers of every download of a stored file: never rendered as a page of the host that serves it (no sniffing
 * `text/plain` into HTML, scripts sandboxed if a browser renders it anyway), never cached by shared caches.
 */
export const DOWNLOAD_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': 'sandbox',
  'cache-control': 'private, no-store',
};

/** The metadata field that carries the file id, as S3 names user metadata. */
export const FILE_ID_FIELD = 'x-amz-meta-file-id';
