import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/setup/dynamodb-local.ts'],
    setupFiles: ['tests/setup/environment.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Two cores: scrypt-heavy files side by side would only queue on the same CPUs.
    maxWorkers: 2,
  },
});
