import { IsString, Matches, MinLength } from 'class-validator';
import { HttpUrl, Optional, WholeNumber } from '../setting-kinds';

/** Data sources: credentials, the stores, documents, embeddings, syncs and search. */
export class SourceSettings {
  /**
   * Keys that encrypt connection credentials at rest (AES-256-GCM): a comma list of base64 32-byte keys. The
   * first encrypts, every one decrypts, so a key is rotated by putting a new one first. Unset: the deployment
   * generates one on first start and keeps it in PostgreSQL (table deployment_secrets).
   */
  @Optional(
    Matches(/^[A-Za-z0-9+/]{43}=(,[A-Za-z0-9+/]{43}=)*$/, {
      message: 'must be a comma list of base64 32-byte keys',
    }),
  )
  credentialsKeys?: string;

  /** Google Drive v3 API (paths as the API's own: /drive/v3/files, /drive/v3/changes). */
  @HttpUrl()
  googleDriveApiUrl = 'https://www.googleapis.com';

  @HttpUrl()
  googleTokenUrl = 'https://oauth2.googleapis.com/token';

  @HttpUrl()
  msGraphApiUrl = 'https://graph.microsoft.com/v1.0';

  @HttpUrl()
  msTokenUrl = 'https://login.microsoftonline.com/common/oauth2/v2.0/token';

  @Optional(IsString())
  googleClientId?: string;

  @Optional(IsString())
  googleClientSecret?: string;

  @Optional(IsString())
  msClientId?: string;

  @Optional(IsString())
  msClientSecret?: string;

  /** One call to a store (Drive, Graph, their token endpoints) gives up after this long. */
  @WholeNumber({ min: 100 })
  storeRequestTimeoutMs = 30000;

  /** Retries of a store call after a 429, a 5xx or a network error, with backoff. */
  @WholeNumber({ min: 0, max: 10 })
  storeMaxRetries = 4;

  /** Longest wait between store call attempts; a Retry-After asking for longer is cut to this. */
  @WholeNumber({ min: 0 })
  storeRetryMaxDelayMs = 30000;

  /** A document larger than this is counted in oversized_documents and not downloaded further nor indexed. */
  @WholeNumber({ min: 1 })
  documentMaxBytes = 20 * 1024 * 1024;

  /** Text extraction of one document gives up (the document counts as failed) after this long. */
  @WholeNumber({ min: 100 })
  documentParseTimeoutMs = 30000;

  /** OpenAI-compatible embeddings endpoint (e.g. http://127.0.0.1:8000/v1); unset: the builtin offline embedder. */
  @Optional(HttpUrl())
  embeddingsBaseUrl?: string;

  @Optional(IsString())
  embeddingsApiKey?: string;

  @IsString()
  @MinLength(1)
  embeddingsModel = 'text-embedding-3-small';

  /** Every source is synced again this often (BullMQ job schedulers); 0 turns periodic syncs off. */
  @WholeNumber({ min: 0 })
  sourceSyncIntervalSeconds = 3600;

  /** Source syncs one worker process runs at once. */
  @WholeNumber({ min: 1, max: 100 })
  sourceSyncConcurrency = 2;

  /** Documents one sync downloads and indexes at once. */
  @WholeNumber({ min: 1, max: 64 })
  sourceSyncFetchConcurrency = 4;

  /**
   * Without pgvector: up to this many visible passages, vector search compares the query with every one;
   * beyond it, with the best full-text matches only (each passage compared costs about 30 µs).
   */
  @WholeNumber({ min: 0 })
  searchExactScanLimit = 5000;
}
