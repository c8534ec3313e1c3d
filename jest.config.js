// Jest runs the TypeScript tests as native ESM, compiled by swc. Its ESM mode needs vm.SourceTextModule,
// which Node (24 too) still keeps behind NODE_OPTIONS=--experimental-vm-modules (scripts/run.mjs sets it).
export default {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  // The topology's test runs on its own (npm run test:topology, jest.topology.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/topology/'],
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } }],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  // The longest files first on a fresh clone (test/long-files.json), as Jest's timings do after.
  testSequencer: '<rootDir>/test/support/long-first.mjs',
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // The money invariants after every test file that moves money (the file names what it does).
  setupFilesAfterEnv: ['<rootDir>/test/support/money-invariants.ts'],
  testTimeout: 60_000,
  // Three: the suite waits on timers, Temporal and the database more than it computes (two workers
  // kept about one core of two busy; docs/decisions.md, "CI").
  maxWorkers: 3,
};
