import { loadSettings, InvalidSettingsError } from './settings';

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
  });

  it('reads and converts variables', () => {
    const settings = loadSettings({ PORT: '8080', MIGRATE_ON_START: 'true', REDIS_PREFIX: 'test-1' });
    expect(settings.port).toBe(8080);
    expect(settings.migrateOnStart).toBe(true);
    expect(settings.redisPrefix).toBe('test-1');
  });

  it('names the variable of a bad value', () => {
    expect(() => loadSettings({ PORT: 'eighty' })).toThrow(InvalidSettingsError);
    expect(() => loadSettings({ PORT: 'eighty' })).toThrow(/^Invalid setting PORT:/);
    expect(() => loadSettings({ REDIS_URL: 'http://x' })).toThrow(/Invalid setting REDIS_URL/);
    expect(() => loadSettings({ ADMIN_PASSWORD: 'short' })).toThrow(/Invalid setting ADMIN_PASSWORD/);
  });
});
