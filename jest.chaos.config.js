/**
 * The fault-injection suite (`npm run test:chaos`): real gateway and worker processes on a PostgreSQL and a Redis
 * of its own, which it kills and restarts. One file at a time: each kills its own dependencies, and the
 * timings it reports mean more without a neighbour competing for the two cores.
 */
const base = require('./jest.config.js');
const common = { ...base.projects[0] };
delete common.displayName;
delete common.testMatch;

module.exports = {
  ...common,
  rootDir: __dirname,
  displayName: 'chaos',
  testMatch: ['<rootDir>/test/chaos/**/*.chaos-spec.ts'],
  maxWorkers: 1,
  testTimeout: 120000,
};
