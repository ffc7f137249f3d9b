/**
 * Three tiers, one jest project each: `npm run test:unit`, `test:integration`, `test:e2e` (the e2e tier drives the
 * built server, so its script builds first); `npm test` type-checks, builds and runs all three.
 */
const shared = {
  testEnvironment: 'node',
  testMatch: ['**/*.test.ts'],
  // ts-jest transpiles only (isolatedModules in tsconfig.json); `npm test` type-checks first with tsc --noEmit.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  setupFiles: ['reflect-metadata'],
};

/** @type {import('jest').Config} */
module.exports = {
  // Generous: CI runs the three tiers in parallel on 2 cores; tests wait on conditions, never on wall-clock bounds.
  testTimeout: 60000,
  projects: [
    { ...shared, displayName: 'unit', roots: ['<rootDir>/tests/unit'] },
    { ...shared, displayName: 'integration', roots: ['<rootDir>/tests/integration', '<rootDir>/tests/stress'] },
    { ...shared, displayName: 'e2e', roots: ['<rootDir>/tests/e2e'] },
  ],
};
