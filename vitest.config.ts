import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/setup/dynamodb-local.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Node 20 runs the tests; Lambda runs Node 22, which the AWS SDK's warning asks for.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // Two cores: scrypt-heavy files side by side would only queue on the same CPUs.
    maxWorkers: 2,
  },
});
