/** Unit tests are pure and fast; integration tests share one Postgres database and one Elasticsearch per run. */
const swc = ['@swc/jest', { jsc: { target: 'es2023', parser: { syntax: 'typescript' } } }];

module.exports = {
  // Integration tests wait for workers and Elasticsearch refreshes; jest reads the timeout from the root only.
  testTimeout: 60000,
  projects: [
    {
      displayName: 'unit',
      testMatch: ['<rootDir>/test/unit/**/*.test.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
    },
    {
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      setupFiles: ['<rootDir>/test/helpers/env.ts'],
    },
    {
      // npm run test:timing: tests that time the process against itself (how long /health waits while a
      // large answer is read, how soon a hang-up stops a render); run one at a time, since a second suite's
      // CPU on a two-core machine is time they would count against the code under test.
      displayName: 'timing',
      testMatch: ['<rootDir>/test/timing/**/*.test.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      setupFiles: ['<rootDir>/test/helpers/env.ts'],
    },
    {
      // npm run test:chaos: services taken away under load (through proxies; the shared services keep running).
      displayName: 'chaos',
      testMatch: ['<rootDir>/test/chaos/**/*.test.ts'],
      transform: { '^.+\\.ts$': swc },
      testEnvironment: 'node',
      globalSetup: '<rootDir>/test/helpers/global-setup.ts',
      globalTeardown: '<rootDir>/test/helpers/global-teardown.ts',
      setupFiles: ['<rootDir>/test/helpers/env.ts'],
    },
  ],
};
