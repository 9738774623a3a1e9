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

export interface DownloadUrlOptions {
  expiresInSeconds: number;
  /** Offered to the browser as the download's file name. */
  filename: string;
  contentType: string;
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

  /** The object's bytes, or null when nothing is stored at `key`. */
  abstract read(key: string): Promise<Readable | null>;

  /** Stores bytes the service itself produced (an agent's file). */
  abstract put(key: string, body: Buffer, contentType: string): Promise<void>;

  abstract delete(key: string): Promise<void>;

  /** An address that answers the object's bytes without the service token until it expires. */
  abstract downloadUrl(key: string, options: DownloadUrlOptions): Promise<string>;
}

/** The metadata field that carries the file id, as S3 names user metadata. */
export const FILE_ID_FIELD = 'x-amz-meta-file-id';
