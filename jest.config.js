/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/tests'],
  testMatch: ['**/*.test.ts'],
  // ts-jest transpiles only (isolatedModules in tsconfig.json); `npm test` type-checks first with tsc --noEmit.
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  setupFiles: ['reflect-metadata'],
  testTimeout: 30000,
};
