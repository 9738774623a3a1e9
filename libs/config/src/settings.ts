import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { plainToInstance, Transform } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  MinLength,
  validateSync,
} from 'class-validator';
import { settingProblem, toBool, toInt } from './setting-problems';

const emptyToUndefined = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/**
 * Every setting of the service, read from the environment once at start (CONTRACTS §1).
 * Each property is named after its variable in camelCase; the `ENV` map below is the exact spelling.
 * A default here must work on one machine with PostgreSQL and Redis on their usual ports.
 */
export class Settings {
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  databaseUrl = 'postgres://postgres@127.0.0.1:5432/agents';

  /**
   * Where `npm run migrate` connects; default DATABASE_URL. Set it to PostgreSQL itself when DATABASE_URL goes
   * through a transaction-pooling PgBouncer: a migration holds one session from start to end.
   */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^postgres(ql)?:\/\//, { message: 'must be a postgres:// URL' })
  databaseMigrationUrl?: string;

  /**
   * PostgreSQL connections one process keeps at most. Every gateway and worker has its own pool, so keep
   * processes × DATABASE_POOL_SIZE ≤ max_connections − reserved (superuser and admin connections).
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(1000)
  databasePoolSize = 20;

  /**
   * Named (server-side) prepared statements for the hot per-step queries. Turn off behind a PgBouncer in
   * transaction mode older than 1.21 (Debian 12 ships 1.18): there a statement prepared on one server
   * connection is unknown on the next.
   */
  @Transform(toBool)
  @IsBoolean()
  databasePreparedStatements = true;

  /** `redis://`, `rediss://`, or `redis-cluster://[user:password@]host:port,host:port` for a Redis Cluster. */
  @Matches(/^(rediss?:\/\/|redis-cluster:\/\/[^,]+(,[^,]+)*$)/, {
    message: 'must be a redis://, rediss:// or redis-cluster://host:port,host:port URL',
  })
  redisUrl = 'redis://127.0.0.1:6379';

  @Matches(/^[A-Za-z0-9:_-]{1,64}$/, { message: 'must be 1-64 letters, digits, ":", "_" or "-"' })
  redisPrefix = 'agents';

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  port = 3000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  storagePort = 3001;

  @IsString()
  host = '0.0.0.0';

  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  logLevel = 'info';

  /**
   * OTLP/HTTP collector base URL (the SDK posts to `<url>/v1/traces`). Unset: no tracing at all, no SDK started.
   * The SDK's other standard variables (OTEL_EXPORTER_OTLP_HEADERS, OTEL_BSP_*, …) are read by the SDK itself.
   */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  otelExporterOtlpEndpoint?: string;

  /** The traces' service name; default `parley-gateway` or `parley-worker` by process. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  otelServiceName?: string;

  /** Server default for options.max_steps (spec 4.2). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  defaultMaxSteps = 60;

  /**
   * Agent runs one worker process executes at once. A run spends nearly all its time waiting on a model, so a
   * slot costs little but memory: hundreds per process, and CPU decides how many a process really serves.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(5000)
  agentRunConcurrency = 500;

  /**
   * An optional hard cap on the runs one organization may have running at once, across every worker (0: none).
   * Fair share needs no cap: the queue serves each organization's k-th outstanding reply before anyone's
   * (k+1)-th, so an organization alone may use every slot and organizations with waiting replies share them.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(100000)
  agentRunOrgConcurrency = 0;

  /** BullMQ lock duration: a worker that stops renewing it for this long is considered stalled. */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  jobLockMs = 30000;

  /** How often BullMQ looks for stalled jobs. */
  @Transform(toInt)
  @IsInt()
  @Min(500)
  jobStalledIntervalMs = 30000;

  /** How often a worker sweeps forgotten replies (pending with no job, running with their job gone). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  runSweepIntervalMs = 15000;

  /** A live reply untouched this long is checked by the sweep. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  runSweepAfterMs = 30000;

  /** How long an authenticated key stays cached in a process; revocation also invalidates at once over Redis. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(60000)
  keyCacheTtlMs = 5000;

  /** Seconds a finished reply's event log stays in Redis before replays fall back to PostgreSQL. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  runEventsTtlSeconds = 3600;

  /** Idle time after which the stream writes a heartbeat line (CONTRACTS §5). */
  @Transform(toInt)
  @IsInt()
  @Min(10)
  streamHeartbeatMs = 15000;

  /**
   * How long a reply's streamed words may wait to be stored before they are published (store, then publish):
   * the words of one interval are stored for every run of a worker in one statement, and go out as one line.
   */
  @Transform(toInt)
  @IsInt()
  @Min(5)
  @Max(1000)
  streamHoldMs = 100;

  /** A reply stream whose client takes no bytes for this long is cut; the client resumes with `after`. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  streamStallTimeoutMs = 10000;

  /**
   * Bytes all stalled reply streams of a gateway may hold together (unsent, in the gateway and its sockets);
   * a stream that stalls beyond it is cut at once instead of after STREAM_STALL_TIMEOUT_MS.
   */
  @Transform(toInt)
  @IsInt()
  @Min(65536)
  streamMaxStalledBytes = 64 * 1024 * 1024;

  /** Context budget, in tokens, of the thread history given to the model (oldest turns dropped first). */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  contextBudgetTokens = 100000;

  /**
   * Long threads (CONTRACTS §19): a run whose history is larger than this, in estimated tokens, first summarizes
   * the older messages; 0 turns it off. An agent's own `compaction` setting wins.
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  compactionThresholdTokens = 60000;

  /** Basic-auth password of the queue dashboard at /admin/queues; the dashboard is off while unset. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(8)
  adminPassword?: string;

  @IsString()
  @MinLength(1)
  adminUser = 'admin';

  /**
   * Browser origins allowed to call the API cross-origin (CORS), a comma list such as
   * `https://app.example.com,https://admin.example.com`; unset: no CORS headers at all.
   */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\/[^,\s/]+(,https?:\/\/[^,\s/]+)*$/, {
    message: 'must be a comma list of origins (scheme://host[:port])',
  })
  corsOrigins?: string;

  /** Token that lets PUT /skills change a platform skill (CONTRACTS §11); unset means no token is right. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16)
  internalToken?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  openaiBaseUrl?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  openaiApiKey?: string;

  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  anthropicBaseUrl = 'https://api.anthropic.com/v1';

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  anthropicApiKey?: string;

  /** Runs migrations when a process starts (used by `npm start`; containers run `npm run migrate` once). */
  @Transform(toBool)
  @IsBoolean()
  migrateOnStart = false;

  /** Port of the worker's health and metrics listener (/health/live, /health/ready, /metrics); 0 turns it off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(65535)
  workerHealthPort = 3002;

  /** On SIGTERM a process stops taking work and finishes what is in flight; after this long it exits anyway. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  shutdownTimeoutMs = 10000;

  /** Retries of a vendor model call after a 429, a 5xx, a network error or a stream broken before any output. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10)
  modelMaxRetries = 3;

  /** First wait between vendor model call attempts; it doubles on each attempt. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  modelRetryBaseMs = 1000;

  /** Longest wait between attempts: a vendor asking (retry-after) to wait longer ends the call with an error. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  modelRetryMaxDelayMs = 30000;

  /** A vendor that sends nothing (no response, no stream bytes) for this long fails the call. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  modelIdleTimeoutMs = 60000;

  /** The `web` tool gives up on a fetch (all redirects included) after this long. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  webToolTimeoutMs = 15000;

  /** The `web` tool reads at most this many bytes of a body (after decompression). */
  @Transform(toInt)
  @IsInt()
  @Min(1024)
  webToolMaxBytes = 2097152;

  /** Characters of readable text the `web` tool gives the model at most. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  webToolMaxChars = 20000;

  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(20)
  webToolMaxRedirects = 5;

  /** Lets the `web` tool reach private, loopback and link-local addresses (tests, trusted networks only). */
  @Transform(toBool)
  @IsBoolean()
  webToolAllowPrivate = false;

  /** Time to start an MCP server (or reach it) and list its tools. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  mcpConnectTimeoutMs = 15000;

  /** Time one MCP tool call may take. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  mcpCallTimeoutMs = 60000;

  /** An MCP connection unused for this long is closed (its stdio server stopped). */
  @Transform(toInt)
  @IsInt()
  @Min(1000)
  mcpIdleCloseMs = 600000;

  /**
   * Lets agents' remote MCP servers be on private, loopback and link-local addresses: for a deployment whose MCP
   * servers are on its own network (and tests) only, since any tenant may then reach that network.
   */
  @Transform(toBool)
  @IsBoolean()
  mcpAllowPrivate = false;

  /** Requests per minute one API key may send, counted in Redis across every gateway replica; 0 turns it off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  rateLimitPerMinute = 0;

  /** The deployment tag the OpenAPI document reports as its version; default `<package version>+<commit>`. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @Matches(/^[0-9A-Za-z.+_-]{1,64}$/, { message: 'must be 1-64 letters, digits or . + _ -' })
  deploymentTag?: string;

  /** Serves the browser playground at /playground. */
  @Transform(toBool)
  @IsBoolean()
  playgroundEnabled = true;

  /** Where uploaded files live: `local` (disk, served by the gateway's embedded storage host) or `s3`. */
  @IsIn(['local', 's3'])
  storageDriver: 'local' | 's3' = 'local';

  /** Directory of the local storage driver. */
  @IsString()
  @MinLength(1)
  storageDir = './data/uploads';

  /** Address clients use to reach the embedded storage host; default http://127.0.0.1:STORAGE_PORT. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  storagePublicUrl?: string;

  /**
   * Key of the local storage host's upload policies and download signatures. Unset: the deployment generates
   * one on first start and keeps it in PostgreSQL (table deployment_secrets), shared by every replica.
   */
  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  @MinLength(16)
  storageSigningSecret?: string;

  /** Largest file the storage host accepts (CONTRACTS §8). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  uploadMaxBytes = 50 * 1024 * 1024;

  /** How long an upload permission stays valid. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 3600)
  uploadUrlTtlSeconds = 900;

  /** How long a ConversationFile.url stays valid. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(7 * 24 * 3600)
  downloadUrlTtlSeconds = 3600;

  /** Characters of attached files' text given to the model with a message, all files together. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  attachmentTextMaxChars = 50000;

  /** S3-compatible endpoint (e.g. MinIO); unset means AWS. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  s3Endpoint?: string;

  /** The endpoint as clients reach it, when it differs from the one the service uses (e.g. in docker). */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  s3PublicEndpoint?: string;

  @IsString()
  @MinLength(1)
  s3Region = 'us-east-1';

  @IsString()
  @MinLength(3)
  s3Bucket = 'parley-uploads';

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  s3AccessKeyId?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  s3SecretAccessKey?: string;

  /** Path-style addressing (`endpoint/bucket/key`), which MinIO and most S3-compatible servers want. */
  @Transform(toBool)
  @IsBoolean()
  s3ForcePathStyle = false;

  /** Address of the gateway as clients reach it, for share link urls; default http://127.0.0.1:PORT. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  publicBaseUrl?: string;

  /**
   * Keys that encrypt connection credentials at rest (AES-256-GCM): a comma list of base64 32-byte keys. The
   * first encrypts, every one decrypts, so a key is rotated by putting a new one first. Unset: the deployment
   * generates one on first start and keeps it in PostgreSQL (table deployment_secrets).
   */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^[A-Za-z0-9+/]{43}=(,[A-Za-z0-9+/]{43}=)*$/, {
    message: 'must be a comma list of base64 32-byte keys',
  })
  credentialsKeys?: string;

  /** Google Drive v3 API (paths as the API's own: /drive/v3/files, /drive/v3/changes). */
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  googleDriveApiUrl = 'https://www.googleapis.com';

  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  googleTokenUrl = 'https://oauth2.googleapis.com/token';

  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  msGraphApiUrl = 'https://graph.microsoft.com/v1.0';

  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  msTokenUrl = 'https://login.microsoftonline.com/common/oauth2/v2.0/token';

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  googleClientId?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  googleClientSecret?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  msClientId?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  msClientSecret?: string;

  /** One call to a store (Drive, Graph, their token endpoints) gives up after this long. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  storeRequestTimeoutMs = 30000;

  /** Retries of a store call after a 429, a 5xx or a network error, with backoff. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  @Max(10)
  storeMaxRetries = 4;

  /** Longest wait between store call attempts; a Retry-After asking for longer is cut to this. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  storeRetryMaxDelayMs = 30000;

  /** A document larger than this is counted in oversized_documents and not downloaded further nor indexed. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  documentMaxBytes = 20 * 1024 * 1024;

  /** Text extraction of one document gives up (the document counts as failed) after this long. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  documentParseTimeoutMs = 30000;

  /**
   * Worker threads of a process that parse untrusted content (web pages, attachments, documents of sources)
   * off its event loop.
   */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  parseThreads = 2;

  /** Heap limit of one parsing thread, in MiB: a parse that needs more fails, the process lives on. */
  @Transform(toInt)
  @IsInt()
  @Min(32)
  parseThreadMemoryMb = 256;

  /** A web page or an attachment that takes longer than this to parse fails, and its thread is terminated. */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  parseTimeoutMs = 10000;

  /** OpenAI-compatible embeddings endpoint (e.g. http://127.0.0.1:8000/v1); unset: the builtin offline embedder. */
  @IsOptional()
  @Transform(emptyToUndefined)
  @Matches(/^https?:\/\//, { message: 'must be an http(s) URL' })
  embeddingsBaseUrl?: string;

  @IsOptional()
  @Transform(emptyToUndefined)
  @IsString()
  embeddingsApiKey?: string;

  @IsString()
  @MinLength(1)
  embeddingsModel = 'text-embedding-3-small';

  /** Every source is synced again this often (BullMQ job schedulers); 0 turns periodic syncs off. */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  sourceSyncIntervalSeconds = 3600;

  /** Source syncs one worker process runs at once. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(100)
  sourceSyncConcurrency = 2;

  /** Documents one sync downloads and indexes at once. */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  @Max(64)
  sourceSyncFetchConcurrency = 4;

  /**
   * Without pgvector: up to this many visible passages, vector search compares the query with every one;
   * beyond it, with the best full-text matches only (each passage compared costs about 30 µs).
   */
  @Transform(toInt)
  @IsInt()
  @Min(0)
  searchExactScanLimit = 5000;

  /** First webhook retry this long after a failure; each next one twice as late, capped at 1 h (CONTRACTS §14). */
  @Transform(toInt)
  @IsInt()
  @Min(1)
  webhookRetryBaseMs = 5000;

  /** How often a worker looks in PostgreSQL for webhook deliveries that are due (new events, retries). */
  @Transform(toInt)
  @IsInt()
  @Min(50)
  webhookSweepIntervalMs = 1000;

  /**
   * How long a queued webhook try owns its delivery row; past it the sweep queues the try again. It bounds how
   * late a try whose job was lost (Redis flushed, a worker killed) goes out; keep it above 10 s, the send timeout.
   */
  @Transform(toInt)
  @IsInt()
  @Min(100)
  webhookLeaseMs = 60000;

  /** Allows webhook URLs on private, loopback and link-local addresses: for tests and closed networks only. */
  @Transform(toBool)
  @IsBoolean()
  webhookAllowPrivate = false;

  /**
   * A test hook: routine schedules may have a sixth, leading seconds field, so a test sees firings in seconds.
   * The API documents 5-field schedules; leave this off in a deployment.
   */
  @Transform(toBool)
  @IsBoolean()
  routineSecondsSchedules = false;
}

/** Environment variable of each setting. */
export const ENV: Record<keyof Settings, string> = {
  databaseUrl: 'DATABASE_URL',
  databaseMigrationUrl: 'DATABASE_MIGRATION_URL',
  databasePoolSize: 'DATABASE_POOL_SIZE',
  databasePreparedStatements: 'DATABASE_PREPARED_STATEMENTS',
  redisUrl: 'REDIS_URL',
  redisPrefix: 'REDIS_PREFIX',
  port: 'PORT',
  storagePort: 'STORAGE_PORT',
  host: 'HOST',
  logLevel: 'LOG_LEVEL',
  otelExporterOtlpEndpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
  otelServiceName: 'OTEL_SERVICE_NAME',
  defaultMaxSteps: 'DEFAULT_MAX_STEPS',
  agentRunConcurrency: 'AGENT_RUN_CONCURRENCY',
  agentRunOrgConcurrency: 'AGENT_RUN_ORG_CONCURRENCY',
  jobLockMs: 'JOB_LOCK_MS',
  jobStalledIntervalMs: 'JOB_STALLED_INTERVAL_MS',
  runSweepIntervalMs: 'RUN_SWEEP_INTERVAL_MS',
  runSweepAfterMs: 'RUN_SWEEP_AFTER_MS',
  keyCacheTtlMs: 'KEY_CACHE_TTL_MS',
  runEventsTtlSeconds: 'RUN_EVENTS_TTL_SECONDS',
  streamHeartbeatMs: 'STREAM_HEARTBEAT_MS',
  streamHoldMs: 'STREAM_HOLD_MS',
  streamStallTimeoutMs: 'STREAM_STALL_TIMEOUT_MS',
  streamMaxStalledBytes: 'STREAM_MAX_STALLED_BYTES',
  contextBudgetTokens: 'CONTEXT_BUDGET_TOKENS',
  compactionThresholdTokens: 'COMPACTION_THRESHOLD_TOKENS',
  adminPassword: 'ADMIN_PASSWORD',
  adminUser: 'ADMIN_USER',
  internalToken: 'INTERNAL_TOKEN',
  corsOrigins: 'CORS_ORIGINS',
  openaiBaseUrl: 'OPENAI_BASE_URL',
  openaiApiKey: 'OPENAI_API_KEY',
  anthropicBaseUrl: 'ANTHROPIC_BASE_URL',
  anthropicApiKey: 'ANTHROPIC_API_KEY',
  migrateOnStart: 'MIGRATE_ON_START',
  workerHealthPort: 'WORKER_HEALTH_PORT',
  shutdownTimeoutMs: 'SHUTDOWN_TIMEOUT_MS',
  modelMaxRetries: 'MODEL_MAX_RETRIES',
  modelRetryBaseMs: 'MODEL_RETRY_BASE_MS',
  modelRetryMaxDelayMs: 'MODEL_RETRY_MAX_DELAY_MS',
  modelIdleTimeoutMs: 'MODEL_IDLE_TIMEOUT_MS',
  webToolTimeoutMs: 'WEB_TOOL_TIMEOUT_MS',
  webToolMaxBytes: 'WEB_TOOL_MAX_BYTES',
  webToolMaxChars: 'WEB_TOOL_MAX_CHARS',
  webToolMaxRedirects: 'WEB_TOOL_MAX_REDIRECTS',
  webToolAllowPrivate: 'WEB_TOOL_ALLOW_PRIVATE',
  mcpConnectTimeoutMs: 'MCP_CONNECT_TIMEOUT_MS',
  mcpCallTimeoutMs: 'MCP_CALL_TIMEOUT_MS',
  mcpIdleCloseMs: 'MCP_IDLE_CLOSE_MS',
  mcpAllowPrivate: 'MCP_ALLOW_PRIVATE',
  rateLimitPerMinute: 'RATE_LIMIT_PER_MINUTE',
  playgroundEnabled: 'PLAYGROUND_ENABLED',
  deploymentTag: 'DEPLOYMENT_TAG',
  storageDriver: 'STORAGE_DRIVER',
  storageDir: 'STORAGE_DIR',
  storagePublicUrl: 'STORAGE_PUBLIC_URL',
  storageSigningSecret: 'STORAGE_SIGNING_SECRET',
  uploadMaxBytes: 'UPLOAD_MAX_BYTES',
  uploadUrlTtlSeconds: 'UPLOAD_URL_TTL_SECONDS',
  downloadUrlTtlSeconds: 'DOWNLOAD_URL_TTL_SECONDS',
  attachmentTextMaxChars: 'ATTACHMENT_TEXT_MAX_CHARS',
  s3Endpoint: 'S3_ENDPOINT',
  s3PublicEndpoint: 'S3_PUBLIC_ENDPOINT',
  s3Region: 'S3_REGION',
  s3Bucket: 'S3_BUCKET',
  s3AccessKeyId: 'S3_ACCESS_KEY_ID',
  s3SecretAccessKey: 'S3_SECRET_ACCESS_KEY',
  s3ForcePathStyle: 'S3_FORCE_PATH_STYLE',
  publicBaseUrl: 'PUBLIC_BASE_URL',
  credentialsKeys: 'CREDENTIALS_KEYS',
  googleDriveApiUrl: 'GOOGLE_DRIVE_API_URL',
  googleTokenUrl: 'GOOGLE_TOKEN_URL',
  msGraphApiUrl: 'MS_GRAPH_API_URL',
  msTokenUrl: 'MS_TOKEN_URL',
  googleClientId: 'GOOGLE_CLIENT_ID',
  googleClientSecret: 'GOOGLE_CLIENT_SECRET',
  msClientId: 'MS_CLIENT_ID',
  msClientSecret: 'MS_CLIENT_SECRET',
  storeRequestTimeoutMs: 'STORE_REQUEST_TIMEOUT_MS',
  storeMaxRetries: 'STORE_MAX_RETRIES',
  storeRetryMaxDelayMs: 'STORE_RETRY_MAX_DELAY_MS',
  documentMaxBytes: 'DOCUMENT_MAX_BYTES',
  documentParseTimeoutMs: 'DOCUMENT_PARSE_TIMEOUT_MS',
  parseThreads: 'PARSE_THREADS',
  parseThreadMemoryMb: 'PARSE_THREAD_MEMORY_MB',
  parseTimeoutMs: 'PARSE_TIMEOUT_MS',
  embeddingsBaseUrl: 'EMBEDDINGS_BASE_URL',
  embeddingsApiKey: 'EMBEDDINGS_API_KEY',
  embeddingsModel: 'EMBEDDINGS_MODEL',
  sourceSyncIntervalSeconds: 'SOURCE_SYNC_INTERVAL_SECONDS',
  sourceSyncConcurrency: 'SOURCE_SYNC_CONCURRENCY',
  sourceSyncFetchConcurrency: 'SOURCE_SYNC_FETCH_CONCURRENCY',
  searchExactScanLimit: 'SEARCH_EXACT_SCAN_LIMIT',
  webhookRetryBaseMs: 'WEBHOOK_RETRY_BASE_MS',
  webhookSweepIntervalMs: 'WEBHOOK_SWEEP_INTERVAL_MS',
  webhookLeaseMs: 'WEBHOOK_LEASE_MS',
  webhookAllowPrivate: 'WEBHOOK_ALLOW_PRIVATE',
  routineSecondsSchedules: 'ROUTINE_SECONDS_SCHEDULES',
};

/** Settings whose values must never reach a log line. */
export const SECRET_SETTINGS: (keyof Settings)[] = [
  'adminPassword',
  'internalToken',
  'openaiApiKey',
  'anthropicApiKey',
  'storageSigningSecret',
  's3SecretAccessKey',
  'credentialsKeys',
  'googleClientSecret',
  'msClientSecret',
  'embeddingsApiKey',
];

export class InvalidSettingsError extends Error {}

/** Reads and validates every setting; throws naming the first bad variable. */
export function loadSettings(env: NodeJS.ProcessEnv): Settings {
  const raw: Record<string, unknown> = {};
  for (const [key, variable] of Object.entries(ENV)) {
    if (env[variable] !== undefined) raw[key] = env[variable];
  }
  const settings = plainToInstance(Settings, raw, { exposeDefaultValues: true });
  const errors = validateSync(settings, { forbidUnknownValues: false });
  if (errors.length > 0) {
    const first = errors[0];
    const variable = ENV[first.property as keyof Settings];
    // A secret's value is never echoed: the message goes to logs and terminals.
    const got = SECRET_SETTINGS.includes(first.property as keyof Settings)
      ? ''
      : ` (got ${JSON.stringify(redactUrlPassword(first.value))})`;
    throw new InvalidSettingsError(
      `Invalid setting ${variable}: ${settingProblem(Settings, first, variable)}${got}`,
    );
  }
  return settings;
}

/** A connection URL's password (postgres://user:secret@host) is masked before the value is shown. */
export function redactUrlPassword(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/(\/\/[^/:@]*:)[^/@]*@/, '$1***@') : value;
}

/**
 * Reads `.env` from the working directory into the environment when the file exists. A variable already set in
 * the environment keeps its value: the environment wins over the file.
 */
export function loadDotEnv(path = '.env', env: NodeJS.ProcessEnv = process.env): void {
  if (!existsSync(path)) return;
  for (const [name, value] of Object.entries(parseEnv(readFileSync(path, 'utf8')))) {
    if (env[name] === undefined) env[name] = value;
  }
}

/**
 * Settings for an entry point: `.env` is read first when present (the environment wins over it), and a bad value
 * ends the process with a message naming the variable.
 */
export function loadSettingsOrExit(env: NodeJS.ProcessEnv = process.env): Settings {
  loadDotEnv('.env', env);
  try {
    return loadSettings(env);
  } catch (error) {
    if (error instanceof InvalidSettingsError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
