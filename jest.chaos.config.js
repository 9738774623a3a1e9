/**
 * The fault-injection suite (`npm run test:chaos`): real gateway and worker processes on a PostgreSQL and a Redis
 * of its own, which it kills and restarts. One file at a time: each kills its own dependencies, and the
 * timings it reports mean more without a neighbour competing for the two cores.
 */
const base = require('./jest.config.js');
const common = { ...base.projects[0] };
delete common.displayName;
delete common.testMatch;

/**
 * Specs that fail now and then on a defect still open, recorded with its evidence in bench/results/chaos.md ("A
 * consumer that stops after the queue master's failover"): they run on their own, `npm run test:chaos:known-defects`,
 * rather than gate CI, and go back into the suite with the fix. Three kills of the queue's master in a row stop both
 * workers' consumers often enough (once in CI on 2026-11-29) that this spec tests the defect, not a change.
 */
const KNOWN_DEFECTS = ['redis-cluster-failover-repeated.chaos-spec.ts'];
const knownDefectsOnly = process.env.CHAOS_KNOWN_DEFECTS === 'only';

module.exports = {
  ...common,
  rootDir: __dirname,
  displayName: 'chaos',
  testMatch: knownDefectsOnly
    ? KNOWN_DEFECTS.map((file) => `<rootDir>/test/chaos/${file}`)
    : ['<rootDir>/test/chaos/**/*.chaos-spec.ts'],
  testPathIgnorePatterns: knownDefectsOnly
    ? ['/node_modules/']
    : ['/node_modules/', ...KNOWN_DEFECTS.map((file) => `/${file.replace(/\./g, '\\.')}$`)],
  maxWorkers: 1,
  testTimeout: 120000,
};
