/** Three tiers (STYLE §2.7): unit specs beside the code, integration on real PostgreSQL/Redis, e2e on real processes. */
const moduleNameMapper = {
  '^@app/([a-z-]+)$': '<rootDir>/libs/$1/src',
  // A library's agent tools have their own entry, so that only the worker loads the agent runtime.
  '^@app/([a-z-]+)/tools$': '<rootDir>/libs/$1/src/tools',
};
const transform = {
  '^.+\\.ts$': ['ts-jest', { isolatedModules: true, tsconfig: 'tsconfig.json' }],
  // jose (which @a2a-js/sdk's client loads) ships ES modules only, and jest runs CommonJS on Node 20: compiled.
  '/node_modules/jose/.+\\.js$': ['ts-jest', { isolatedModules: true, tsconfig: { allowJs: true } }],
};
const common = {
  rootDir: __dirname,
  setupFiles: ['reflect-metadata'],
  moduleFileExtensions: ['js', 'json', 'ts'],
  testEnvironment: 'node',
  transform,
  transformIgnorePatterns: ['/node_modules/(?!jose/)'],
  moduleNameMapper,
};
// The suites on real stores drop what a killed run left in them first (idempotent, so once per project is fine).
const onRealStores = { ...common, globalSetup: '<rootDir>/test/support/global-setup.ts' };

module.exports = {
  maxWorkers: 2,
  // e2e hooks start real processes; testTimeout is a global option, not a per-project one.
  testTimeout: 60000,
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{apps,libs}/**/*.spec.ts'] },
    {
      ...onRealStores,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.int-spec.ts'],
      testTimeout: 30000,
    },
    {
      ...onRealStores,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.e2e-spec.ts'],
      testTimeout: 60000,
    },
  ],
};
