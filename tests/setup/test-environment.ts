import { randomBytes, randomUUID } from 'node:crypto';
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Environment } from '../../lib/config.js';
import { newKeySet } from '../../lib/secrets/signing-keys.js';
import { freePort } from '../harness/dynamodb-local.js';
import { type LocalEnvironmentOptions, localEnvironment } from '../harness/environment.js';
import { type OfflineService, startOfflineService } from '../harness/offline-service.js';

// The service's environment in the tests, and serverless-offline started with it: for the test
// files and for the global setup, which runs outside vitest's workers (so no vitest import here).

/** The table every test file shares (each works in companies of its own). */
export const TEST_TABLE = 'wallet-auth-test';

/** The service's environment in the tests: the run's DynamoDB Local, an outbox of its own. */
export function serviceEnvironment(
  dynamodbEndpoint: string,
  settings: Environment = {},
  options: Partial<LocalEnvironmentOptions> = {},
): Record<string, string> {
  return localEnvironment({
    stage: 'test',
    tableName: TEST_TABLE,
    dynamodbEndpoint,
    outboxFile: join(tmpdir(), `wallet-outbox-${randomUUID()}.jsonl`),
    ...(options.serverSecretFile ? {} : { serverSecret: '5e'.repeat(32) }),
    logLevel: 'WARN',
    ...options,
    settings: {
      // A loaded CI machine can stall DynamoDB Local for a moment; the fault tests set their own.
      DYNAMODB_TIMEOUT_MS: '3000',
      DYNAMODB_FIRST_ATTEMPT_TIMEOUT_MS: '3000',
      // A change to a company shows at once.
      COMPANY_CACHE_SECONDS: '0',
      // In process, one "container" serves many concurrent calls, which Lambda never does: the
      // function's deadline (10 s, tested on its own) would only make races flaky on 2 cores.
      FUNCTION_TIMEOUT_SECONDS: '60',
      // Every test calls from 127.0.0.1 and most send to Washington numbers (area 202): the
      // per-address and per-range limits are off but where a test sets them (tests/otp/fraud-guard.test.ts).
      OTP_SENDS_PER_ADDRESS_PER_HOUR: '0',
      OTP_VERIFIES_PER_ADDRESS: '0',
      OTP_SENDS_PER_PREFIX_PER_HOUR: '0',
      // The outbox takes a millisecond, not SNS's tenth of a second: a prior near SNS would only
      // slow every unregistered login send (tests/otp/answer-time.test.ts sets its own).
      SMS_DECOY_PRIOR_MEDIAN_MS: '2',
      SMS_DECOY_PRIOR_P90_MS: '5',
      // An admin made in a test approves at once; tests/admin/dual-control.test.ts sets the deployed floor (72).
      ADMIN_APPROVER_MIN_HOURS: '0',
      ...settings,
    },
  });
}

/** Where the server's secret is: a local file (as npm start's), or a parameter of an SSM endpoint (as a deployed stage's). */
export type SecretPlacement = { file: true } | { ssmEndpoint: string; parameter: string };

export interface TestOffline {
  server: OfflineService;
  /** The environment the server runs with; its outbox is `env.SMS_OUTBOX_FILE`. */
  env: Record<string, string>;
}

/**
 * The service under serverless-offline against the run's DynamoDB Local (stage "test"), with
 * settings of its own. Its server secret is in a file (SERVER_SECRET_FILE), as npm start's is,
 * or in a fake SSM Parameter Store: serverless.yml puts no secret in any function's environment.
 * `outputFile`, when given, receives the server's output as it comes; `prebuilt`, another server's
 * bundles (OfflineService.handlers), served instead of building them again.
 */
export async function startTestOffline(
  dynamodbEndpoint: string,
  settings: Environment = {},
  placement: SecretPlacement = { file: true },
  outputFile?: string,
  prebuilt?: string,
): Promise<TestOffline> {
  let env: Record<string, string>;
  // The port is chosen here so the tokens' issuer is the server's own address, in the server and its in-process twin.
  const port = await freePort();
  settings = { PORT: String(port), TOKEN_ISSUER: `http://127.0.0.1:${port}`, ...settings };
  const folder = mkdtempSync(join(tmpdir(), 'wallet-secret-'));
  // Signing keys in a file too, as npm start's (one key of the stage's ACCESS_TOKEN_ALG): serverless.yml
  // passes no key set in any function's environment.
  const signingKeysFile = join(folder, 'signing-keys.json');
  writeFileSync(signingKeysFile, JSON.stringify(newKeySet(0, settings.ACCESS_TOKEN_ALG === 'RS256' ? 'RS256' : 'ES256')), { mode: 0o600 });
  if ('file' in placement) {
    const secretFile = join(folder, 'server-secret');
    writeFileSync(secretFile, randomBytes(32).toString('hex'), { mode: 0o600 });
    env = serviceEnvironment(dynamodbEndpoint, settings, { serverSecretFile: secretFile, signingKeysFile });
  } else {
    env = serviceEnvironment(
      dynamodbEndpoint,
      { ...settings, SERVER_SECRET_PARAMETER: placement.parameter, SSM_ENDPOINT: placement.ssmEndpoint },
      { signingKeysFile },
    );
    delete env.SERVER_SECRET;
  }
  const onOutput = outputFile ? (text: string) => appendFileSync(outputFile, text) : undefined;
  const server = await startOfflineService({ stage: 'test', env, onOutput, ...(prebuilt ? { prebuilt } : {}) });
  return { server, env };
}
