// `npm run test:topology`: the test on the local production topology (scripts/topology.ts). It
// starts everything it needs itself, so none of the suite's global setup (its own database,
// Temporal and server) runs.
import base from './jest.config.js';

export default {
  ...base,
  roots: ['<rootDir>/test/topology'],
  testPathIgnorePatterns: [],
  globalSetup: undefined,
  globalTeardown: undefined,
  testSequencer: undefined,
  maxWorkers: 1,
};
