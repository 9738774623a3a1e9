import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV, loadDotEnv, loadSettings, InvalidSettingsError, SETTINGS_AREAS } from './settings';
import { maxStepsOf } from './settings/run.settings';

describe('maxStepsOf', () => {
  it("keeps the request's cap and falls back to DEFAULT_MAX_STEPS only when none was asked", () => {
    const settings = loadSettings({ DEFAULT_MAX_STEPS: '9' });
    expect(maxStepsOf(settings, 3)).toBe(3);
    expect(maxStepsOf(settings, undefined)).toBe(9);
    expect(maxStepsOf(settings, null)).toBe(9);
    expect(maxStepsOf(settings)).toBe(9);
  });
});

describe('loadSettings', () => {
  it('gives working defaults with an empty environment', () => {
    const settings = loadSettings({});
    expect(settings.databaseUrl).toBe('postgres://postgres@127.0.0.1:5432/agents');
    expect(settings.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(settings.redisPrefix).toBe('agents');
    expect(settings.port).toBe(3000);
    expect(settings.storagePort).toBe(3001);
    expect(settings.defaultMaxSteps).toBe(60);
    expect(settings.adminPassword).toBeUndefined();
    expect(settings.databasePoolSize).toBe(20);
    expect(settings.databasePreparedStatements).toBe(true);
    expect(settings.databaseMigrationUrl).toBeUndefined();
  });

  it('reads the database pool settings a deployment behind PgBouncer needs', () => {
    const settings = loadSettings({
      DATABASE_POOL_SIZE: '5',
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_MIGRATION_URL: 'postgres://postgres@db:5432/agents',
    });
    expect(settings.databasePoolSize).toBe(5);
    expect(settings.databasePreparedStatements).toBe(false);
    expect(settings.databaseMigrationUrl).toBe('postgres://postgres@db:5432/agents');
    expect(() => loadSettings({ DATABASE_POOL_SIZE: '0' })).toThrow(/Invalid setting DATABASE_POOL_SIZE/);
    expect(() => loadSettings({ DATABASE_MIGRATION_URL: 'mysql://x' })).toThrow(
      /Invalid setting DATABASE_MIGRATION_URL/,
    );
  });

  it('reads and converts variables', () => {
    const settings = loadSettings({ PORT: '8080', MIGRATE_ON_START: 'true', REDIS_PREFIX: 'test-1' });
    expect(settings.port).toBe(8080);
    expect(settings.migrateOnStart).toBe(true);
    expect(settings.redisPrefix).toBe('test-1');
  });

  it("reads HEAP_GROWTH_PERCENT: 0 (V8's own growing factor) unless set, whole percentages up to 300", () => {
    expect(loadSettings({}).heapGrowthPercent).toBe(0);
    expect(loadSettings({ HEAP_GROWTH_PERCENT: '20' }).heapGrowthPercent).toBe(20);
    for (const bad of ['-1', '301', '12.5', 'some'])
      expect(() => loadSettings({ HEAP_GROWTH_PERCENT: bad })).toThrow(/Invalid setting HEAP_GROWTH_PERCENT/);
  });

  it('reads EVAL_ITEMS_IN_FLIGHT: 8 unless set, a whole number from 1 to 1000', () => {
    expect(loadSettings({}).evalItemsInFlight).toBe(8);
    expect(loadSettings({ EVAL_ITEMS_IN_FLIGHT: '32' }).evalItemsInFlight).toBe(32);
    for (const bad of ['0', '1001', '2.5', 'many'])
      expect(() => loadSettings({ EVAL_ITEMS_IN_FLIGHT: bad })).toThrow(
        /Invalid setting EVAL_ITEMS_IN_FLIGHT/,
      );
  });

  it('reads EVAL_JUDGE_TIMEOUT_MS: 60000 unless set, a whole number of at least 1000', () => {
    expect(loadSettings({}).evalJudgeTimeoutMs).toBe(60000);
    expect(loadSettings({ EVAL_JUDGE_TIMEOUT_MS: '120000' }).evalJudgeTimeoutMs).toBe(120000);
    for (const bad of ['999', '1500.5', 'slow'])
      expect(() => loadSettings({ EVAL_JUDGE_TIMEOUT_MS: bad })).toThrow(
        /Invalid setting EVAL_JUDGE_TIMEOUT_MS/,
      );
  });

  it('names the variable of a bad value', () => {
    expect(() => loadSettings({ PORT: 'eighty' })).toThrow(InvalidSettingsError);
    expect(() => loadSettings({ PORT: 'eighty' })).toThrow(/^Invalid setting PORT:/);
    expect(() => loadSettings({ REDIS_URL: 'http://x' })).toThrow(/Invalid setting REDIS_URL/);
    expect(() => loadSettings({ REDIS_URL: 'redis-cluster://' })).toThrow(/Invalid setting REDIS_URL/);
    expect(loadSettings({ REDIS_URL: 'redis-cluster://a:7000,b:7001' }).redisUrl).toBe(
      'redis-cluster://a:7000,b:7001',
    );
    expect(() => loadSettings({ ADMIN_PASSWORD: 'short' })).toThrow(/Invalid setting ADMIN_PASSWORD/);
  });

  it.each([
    ['PORT', 'abc', 'must be a whole number from 0 to 65535 (got "abc")'],
    ['PORT', '70000', 'must be a whole number from 0 to 65535 (got 70000)'],
    ['PORT', '80.5', 'must be a whole number from 0 to 65535 (got "80.5")'],
    ['DATABASE_POOL_SIZE', '0', 'must be a whole number from 1 to 1000 (got 0)'],
    ['JOB_LOCK_MS', 'soon', 'must be a whole number of at least 1000 (got "soon")'],
    [
      'PLAYGROUND_ENABLED',
      'maybe',
      'must be true or false (1/0, yes/no and on/off are accepted too) (got "maybe")',
    ],
    ['LOG_LEVEL', 'loud', 'LOG_LEVEL must be one of the following values: fatal, error, warn, info, debug'],
  ])('says what is wrong with %s=%s and what is accepted', (variable, value, message) => {
    expect(() => loadSettings({ [variable]: value })).toThrow(`Invalid setting ${variable}: ${message}`);
  });

  it('reads on/off settings in every accepted spelling, and nothing else as off', () => {
    for (const on of ['true', 'TRUE', '1', 'yes', 'on', 'On'])
      expect(loadSettings({ PLAYGROUND_ENABLED: on }).playgroundEnabled).toBe(true);
    for (const off of ['false', '0', 'no', 'off', 'OFF'])
      expect(loadSettings({ PLAYGROUND_ENABLED: off }).playgroundEnabled).toBe(false);
    expect(() => loadSettings({ PLAYGROUND_ENABLED: 'enabled' })).toThrow(
      /Invalid setting PLAYGROUND_ENABLED/,
    );
  });

  it('has no built-in secret: unset secrets are generated by the deployment, not defaulted here', () => {
    const settings = loadSettings({});
    expect(settings.storageSigningSecret).toBeUndefined();
    expect(settings.credentialsKeys).toBeUndefined();
  });

  it.each([
    ['STORAGE_SIGNING_SECRET', 'short-secret'],
    ['CREDENTIALS_KEYS', 'not-base64-but-a-real-secret!'],
    ['ADMIN_PASSWORD', 'sh0rt!'],
  ])('never echoes the value of a bad secret (%s)', (variable, value) => {
    expect(() => loadSettings({ [variable]: value })).toThrow(new RegExp(`^Invalid setting ${variable}`));
    expect(() => loadSettings({ [variable]: value })).not.toThrow(value);
  });

  it('reads MODEL_PRICES as a JSON map of prices, none when unset, and refuses anything else', () => {
    const prices = { 'openai:gpt-4o': { input_per_mtok: 2.5, output_per_mtok: 10 } };
    expect(loadSettings({ MODEL_PRICES: JSON.stringify(prices) }).modelPrices).toEqual(prices);
    expect(loadSettings({}).modelPrices).toEqual({});
    expect(loadSettings({ MODEL_PRICES: '' }).modelPrices).toEqual({});
    for (const bad of [
      '{not json',
      '[1]',
      '{"m": {"input_per_mtok": 1}}',
      '{"m": {"input_per_mtok": -1, "output_per_mtok": 1}}',
    ]) {
      expect(() => loadSettings({ MODEL_PRICES: bad })).toThrow(
        /^Invalid setting MODEL_PRICES: must be a JSON map/,
      );
    }
  });

  it('masks the password of a connection URL in the error', () => {
    expect(() => loadSettings({ DATABASE_MIGRATION_URL: 'mysql://app:hunter2@db/x' })).toThrow(
      /Invalid setting DATABASE_MIGRATION_URL: .*mysql:\/\/app:\*\*\*@db\/x/,
    );
    expect(() => loadSettings({ DATABASE_MIGRATION_URL: 'mysql://app:hunter2@db/x' })).not.toThrow(/hunter2/);
  });
});

describe('ENV', () => {
  it('names each setting of every area by its property in upper snake case, and reads it', () => {
    expect(ENV).toMatchObject({
      databaseUrl: 'DATABASE_URL',
      otelExporterOtlpEndpoint: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      s3AccessKeyId: 'S3_ACCESS_KEY_ID',
      msGraphApiUrl: 'MS_GRAPH_API_URL',
      parseThreadMemoryMb: 'PARSE_THREAD_MEMORY_MB',
      routineSecondsSchedules: 'ROUTINE_SECONDS_SCHEDULES',
    });
    // Every property of every area has its variable: a setting without a rule would be missing here, and unread.
    const properties = SETTINGS_AREAS.flatMap((area) => Object.getOwnPropertyNames(new area()));
    expect(Object.keys(ENV).sort()).toEqual(properties.sort());
    expect(loadSettings({ S3_ACCESS_KEY_ID: 'id', WEBHOOK_LEASE_MS: '500' })).toMatchObject({
      s3AccessKeyId: 'id',
      webhookLeaseMs: 500,
    });
  });
});

describe('loadDotEnv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'parley-env-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('reads the file, the environment winning over it, and ignores a missing file', () => {
    const file = join(dir, '.env');
    writeFileSync(file, 'PARLEY_TEST_FROM_FILE=file\nPARLEY_TEST_BOTH=file\n');
    const env: NodeJS.ProcessEnv = { PARLEY_TEST_BOTH: 'environment' };
    loadDotEnv(file, env);
    expect(env).toEqual({ PARLEY_TEST_FROM_FILE: 'file', PARLEY_TEST_BOTH: 'environment' });
    expect(() => loadDotEnv(join(dir, 'absent.env'), env)).not.toThrow();
  });
});
