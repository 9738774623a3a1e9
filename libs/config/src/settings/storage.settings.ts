import { IsIn, IsString, MinLength } from 'class-validator';
import { HttpUrl, OnOff, Optional, WholeNumber } from '../setting-kinds';

/** Uploads, downloads and share links: the storage driver and its limits. */
export class StorageSettings {
  /** Where uploaded files live: `local` (disk, served by the gateway's embedded storage host) or `s3`. */
  @IsIn(['local', 's3'])
  storageDriver: 'local' | 's3' = 'local';

  /** Directory of the local storage driver. */
  @IsString()
  @MinLength(1)
  storageDir = './data/uploads';

  /** Address clients use to reach the embedded storage host; default http://127.0.0.1:STORAGE_PORT. */
  @Optional(HttpUrl())
  storagePublicUrl?: string;

  /**
   * Key of the local storage host's upload policies and download signatures. Unset: the deployment generates
   * one on first start and keeps it in PostgreSQL (table deployment_secrets), shared by every replica.
   */
  @Optional(IsString(), MinLength(16))
  storageSigningSecret?: string;

  /** Largest file the storage host accepts (CONTRACTS §8). */
  @WholeNumber({ min: 1 })
  uploadMaxBytes = 50 * 1024 * 1024;

  /** How long an upload permission stays valid. */
  @WholeNumber({ min: 1, max: 7 * 24 * 3600 })
  uploadUrlTtlSeconds = 900;

  /** How long a ConversationFile.url stays valid. */
  @WholeNumber({ min: 1, max: 7 * 24 * 3600 })
  downloadUrlTtlSeconds = 3600;

  /** Characters of attached files' text given to the model with a message, all files together. */
  @WholeNumber({ min: 0 })
  attachmentTextMaxChars = 50000;

  /** S3-compatible endpoint (e.g. MinIO); unset means AWS. */
  @Optional(HttpUrl())
  s3Endpoint?: string;

  /** The endpoint as clients reach it, when it differs from the one the service uses (e.g. in docker). */
  @Optional(HttpUrl())
  s3PublicEndpoint?: string;

  @IsString()
  @MinLength(1)
  s3Region = 'us-east-1';

  @IsString()
  @MinLength(3)
  s3Bucket = 'parley-uploads';

  @Optional(IsString())
  s3AccessKeyId?: string;

  @Optional(IsString())
  s3SecretAccessKey?: string;

  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and most S3-compatible servers want. */
  @OnOff()
  s3ForcePathStyle = false;

  /** Address of the gateway as clients reach it, for share link urls; default http://127.0.0.1:PORT. */
  @Optional(HttpUrl())
  publicBaseUrl?: string;
}
