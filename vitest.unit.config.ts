import { defineConfig } from 'vitest/config';

// The first tier (`npm run test:unit`): the tests that need nothing running. No DynamoDB Local, no
// serverless-offline, no packaging, no Chromium: this config has no global setup, and a file here
// that asks for one (inject) gets nothing. The pure rules of lib/, the settings and the generated
// files, the client library against a fake fetch and a local JWKS, the console's pure modules.
// `npm test` runs these too, as the `unit` project of vitest.config.ts, beside every other tier.

/** The tests of tests/ that need no service: each file by name, since the folders mirror lib/ and hold both kinds. */
export const UNIT_TESTS = [
  'tests/config.test.ts',
  'tests/api/endpoints.test.ts',
  'tests/api/openapi.test.ts',
  'tests/api/redeem-authorization-schema.test.ts',
  'tests/console/console-function.test.ts',
  'tests/console/console-modules.test.ts',
  'tests/console/sms-size.test.ts',
  'tests/deploy/compact-zips.test.ts',
  'tests/deploy/key-kinds.test.ts',
  'tests/docs/bench-figures.test.ts',
  'tests/docs/cited-tests.test.ts',
  'tests/docs/counts.test.ts',
  'tests/docs/data-layout.test.ts',
  'tests/docs/generated-files.test.ts',
  'tests/docs/links.test.ts',
  'tests/events/event-schemas.test.ts',
  'tests/hardening/event-check.test.ts',
  'tests/hardening/phone-change-check.test.ts',
  'tests/notifications/unread-shards.test.ts',
  'tests/scaling/simulate.test.ts',
  'tests/secrets/server-keys.test.ts',
  'tests/secrets/signing-keys.test.ts',
  'tests/sessions/dpop-proofs.test.ts',
  'tests/sms/sms-segments.test.ts',
  'tests/sms/text-dispatch.test.ts',
  'tests/users/phone-plan.test.ts',
];

/** The client library's unit tests: a fake fetch, a local JWKS, no network. */
export const CLIENT_UNIT_TESTS = ['client/tests/unit/**/*.test.ts'];

/** What every project runs with. Not `extends: true`: a project that extends the root inherits its globalSetup and runs it again. */
export const shared = {
  testTimeout: 60_000,
  hookTimeout: 120_000,
  // Files of a worker share one process and its loaded modules: a fresh process per file spent
  // about 1.7 s of CPU importing the same modules again (30 s of 57 over 16 files; no file relies
  // on module state of its own: each builds its own App).
  isolate: false,
  // Node 20 runs the tests; Lambda runs Node 22, which the AWS SDK's warning asks for.
  env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
};

export const unitProject = { test: { ...shared, name: 'unit', include: [...UNIT_TESTS, ...CLIENT_UNIT_TESTS] } };

export default defineConfig({ test: { maxWorkers: 2, projects: [unitProject] } });
