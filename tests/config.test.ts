// lib/config.ts's bounds on the security limits (issue 32.4): a deployed stage (AWS's table) refuses
// a limit past its bound when the configuration is read; DynamoDB Local's stages may pass them.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEPLOYED_BOUNDS, readConfig } from '../lib/config.js';
import { SETTINGS, type SettingName, sourceOf } from '../lib/settings.js';
import { renderedPages } from '../scripts/settings-docs.js';

/** A deployed stage's environment: AWS's table (no DYNAMODB_ENDPOINT), the SMS queue's URL as CloudFormation sets it. */
const deployed = (settings: Record<string, string>) =>
  readConfig({ STAGE: 'prod', SMS_QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/123456789012/queue', ...settings });
/** The tests' stage on DynamoDB Local. */
const onLocalTable = (settings: Record<string, string>) =>
  readConfig({ STAGE: 'test', DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000', ...settings });
const problemsOf = (read: () => unknown): string[] => {
  try {
    read();
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
};

// Written out, not read from DEPLOYED_BOUNDS: [setting, the last value taken, the first refused].
const CAPS: [string, number, number][] = [
  ['PIN_MAX_FAILURES', 10, 11],
  ['MAX_DEVICES_PER_USER', 20, 21],
  ['PIN_LOGIN_WINDOW_SECONDS', 600, 601],
  ['PIN_RESET_OTP_SESSION_SECONDS', 900, 901],
  ['AUTHORIZATION_TTL_SECONDS', 300, 301],
  ['TOKEN_TTL_SECONDS', 7_776_000, 7_776_001],
  ['SESSION_IDLE_SECONDS', 2_592_000, 2_592_001],
  ['REFRESH_REUSE_GRACE_SECONDS', 60, 61],
  ['DPOP_PROOF_MAX_AGE_SECONDS', 300, 301],
  ['VERIFICATION_TOKEN_TTL_SECONDS', 3600, 3601],
  ['COMPANY_CACHE_SECONDS', 30, 31],
  ['OTP_TTL_SECONDS', 600, 601],
  ['OTP_MAX_ATTEMPTS', 10, 11],
  ['OTP_SENDS_PER_PHONE_PER_HOUR', 20, 21],
  ['OTP_SENDS_PER_COMPANY_PER_HOUR', 100_000, 100_001],
  ['OTP_SENDS_PER_PREFIX_PER_HOUR', 1000, 1001],
  ['OTP_PREFIX_DIGITS', 8, 9],
  ['OTP_SENDS_PER_ADDRESS_PER_HOUR', 1000, 1001],
  ['OTP_VERIFIES_PER_ADDRESS', 1000, 1001],
  ['OTP_FAILURES_PER_PHONE', 20, 21],
  ['ACCESS_TOKEN_TTL_SECONDS', 3600, 3601],
  ['ADMIN_SESSION_HOURS', 24, 25],
  ['ADMIN_LOOKUPS_PER_HOUR', 1000, 1001],
  ['PROBATION_DEVICES_MAX', 10, 11],
  ['STEP_UP_MAX_AGE_SECONDS', 900, 901],
  ['PIN_DAILY_MAX_FAILURES', 20, 21],
];
/** Windows and intervals, whose shorter values let more through: [setting, the first value taken, the last refused]. */
const FLOORS: [string, number, number][] = [
  ['OTP_SEND_INTERVAL_SECONDS', 30, 29],
  ['OTP_VERIFY_ADDRESS_WINDOW_SECONDS', 60, 59],
  ['OTP_FAILURE_WINDOW_SECONDS', 3600, 3599],
  ['PHONE_CHANGE_HOLD_HOURS', 24, 23],
  ['CREDENTIAL_PROBATION_HOURS', 24, 23],
  ['ADMIN_APPROVER_MIN_HOURS', 72, 71],
];
/** The limits 0 turns off, which a deployed stage may still do. */
const TURNED_OFF = ['OTP_SENDS_PER_PREFIX_PER_HOUR', 'OTP_SENDS_PER_ADDRESS_PER_HOUR', 'OTP_VERIFIES_PER_ADDRESS'];

describe('the access tokens’ issuer', () => {
  it('is the local server on a local stage, an https URL of the operator’s on a deployed one', () => {
    expect(onLocalTable({}).tokenIssuer).toBe('http://localhost:3000');
    expect(onLocalTable({ PORT: '4100' }).tokenIssuer).toBe('http://localhost:4100');
    expect(deployed({ TOKEN_ISSUER: 'https://auth.example.com/' }).tokenIssuer).toBe('https://auth.example.com');
    expect(problemsOf(() => deployed({ TOKEN_ISSUER: 'http://auth.example.com' }))).toEqual([
      'TOKEN_ISSUER must be the service’s base URL, https on a deployed stage',
    ]);
    expect(problemsOf(() => onLocalTable({ TOKEN_ISSUER: 'not a url' }))).toEqual(['TOKEN_ISSUER must be the service’s base URL']);
  });
});

describe('the access tokens’ algorithm (ACCESS_TOKEN_ALG)', () => {
  it('is ES256 unless set, RS256 when asked, and anything else refuses to start, naming what was given', () => {
    expect(deployed({}).accessTokenAlg).toBe('ES256');
    expect(deployed({ ACCESS_TOKEN_ALG: 'RS256' }).accessTokenAlg).toBe('RS256');
    expect(onLocalTable({ ACCESS_TOKEN_ALG: 'RS256' }).accessTokenAlg).toBe('RS256');
    for (const value of ['HS256', 'none', 'PS256', 'RS512', 'ES256K']) {
      expect(problemsOf(() => deployed({ ACCESS_TOKEN_ALG: value }))).toEqual([
        `ACCESS_TOKEN_ALG must be one of ES256, RS256, not "${value}"`,
      ]);
      expect(problemsOf(() => onLocalTable({ ACCESS_TOKEN_ALG: value }))).toHaveLength(1);
    }
  });
});

describe('probation and the hold (contract 3.15)', () => {
  it('refuses a probation shorter than the hold on any stage: a device must not settle before its held change could be cancelled', () => {
    expect(problemsOf(() => onLocalTable({ PHONE_CHANGE_HOLD_HOURS: '2', CREDENTIAL_PROBATION_HOURS: '1' }))).toEqual([
      'CREDENTIAL_PROBATION_HOURS must be at least PHONE_CHANGE_HOLD_HOURS',
    ]);
    expect(problemsOf(() => onLocalTable({ PHONE_CHANGE_HOLD_HOURS: '2', CREDENTIAL_PROBATION_HOURS: '2' }))).toEqual([]);
    expect(problemsOf(() => deployed({ PHONE_CHANGE_HOLD_HOURS: '48' }))).toEqual([
      'CREDENTIAL_PROBATION_HOURS must be at least PHONE_CHANGE_HOLD_HOURS',
    ]);
  });
});

describe('the security limits on a deployed stage', () => {
  it('takes the defaults', () => {
    expect(problemsOf(() => deployed({}))).toEqual([]);
    expect(deployed({}).pinMaxFailures).toBe(5);
  });

  it('bounds exactly these settings', () => {
    expect(Object.keys(DEPLOYED_BOUNDS).sort()).toEqual([...CAPS, ...FLOORS].map(([name]) => name).sort());
  });

  it.each(CAPS)('takes %s up to %i, and refuses %i', (name, last, first) => {
    expect(problemsOf(() => deployed({ [name]: String(last) }))).toEqual([]);
    const [problem, ...others] = problemsOf(() => deployed({ [name]: String(first) }));
    expect(others).toEqual([]);
    expect(problem).toMatch(new RegExp(`^${name} must be from \\d+ to ${last}( \\(or 0: off\\))? on a deployed stage, not ${first}$`));
  });

  it.each(FLOORS)('takes %s from %i, and refuses %i', (name, first, last) => {
    expect(problemsOf(() => deployed({ [name]: String(first) }))).toEqual([]);
    expect(problemsOf(() => deployed({ [name]: String(last) }))).toEqual([
      `${name} must be at least ${first} on a deployed stage, not ${last}`,
    ]);
  });

  it('lets 0 turn off the per-address and per-range limits, and refuses 0 for the others', () => {
    for (const name of TURNED_OFF)
      expect(
        problemsOf(() => deployed({ [name]: '0' })),
        name,
      ).toEqual([]);
    expect(problemsOf(() => deployed({ OTP_SEND_INTERVAL_SECONDS: '0' }))).toEqual([
      'OTP_SEND_INTERVAL_SECONDS must be at least 30 on a deployed stage, not 0',
    ]);
  });

  it('names every setting past its bound at once, as the issue’s shell had them', () => {
    expect(problemsOf(() => deployed({ PIN_MAX_FAILURES: '100000', OTP_MAX_ATTEMPTS: '1000', OTP_TTL_SECONDS: '86400' }))).toEqual([
      'PIN_MAX_FAILURES must be from 1 to 10 on a deployed stage, not 100000',
      'OTP_TTL_SECONDS must be from 1 to 600 on a deployed stage, not 86400',
      'OTP_MAX_ATTEMPTS must be from 1 to 10 on a deployed stage, not 1000',
    ]);
  });

  it('logs at INFO or DEBUG, never above INFO, where the audit events would be lost', () => {
    expect(deployed({ LOG_LEVEL: 'DEBUG' }).logLevel).toBe('DEBUG');
    for (const level of ['WARN', 'ERROR', 'SILENT']) {
      expect(
        problemsOf(() => deployed({ LOG_LEVEL: level })),
        level,
      ).toEqual(['LOG_LEVEL must be INFO or DEBUG on a deployed stage (above INFO the audit events are lost)']);
    }
  });

  it('binds wherever the table is AWS’s, whatever the stage is called', () => {
    expect(problemsOf(() => readConfig({ STAGE: 'test', SMS_DELIVERY: 'direct', PIN_MAX_FAILURES: '11' }))).toEqual([
      'PIN_MAX_FAILURES must be from 1 to 10 on a deployed stage, not 11',
    ]);
  });
});

describe('the security limits on DynamoDB Local', () => {
  it('may pass the bounds, to move a limit out of a test’s way (npm start, the tests, bench, load, fuzz, chaos)', () => {
    const config = onLocalTable({
      PIN_MAX_FAILURES: '100000',
      OTP_MAX_ATTEMPTS: '1000',
      OTP_SEND_INTERVAL_SECONDS: '0',
      LOG_LEVEL: 'SILENT',
    });
    expect([config.pinMaxFailures, config.otp.maxAttempts, config.otp.sendIntervalSeconds, config.logLevel]).toEqual([
      100000,
      1000,
      0,
      'SILENT',
    ]);
    // npm start's stage defaults to DynamoDB Local on this machine.
    expect(readConfig({ OTP_MAX_ATTEMPTS: '100' }).otp.maxAttempts).toBe(100);
  });

  it('still refuses what no stage can run with', () => {
    expect(problemsOf(() => onLocalTable({ PIN_MAX_FAILURES: '0' }))).toEqual(['PIN_MAX_FAILURES must be a whole number of at least 1']);
  });
});

describe('the settings’ one declaration (lib/settings.ts)', () => {
  it('is what docs/configuration.md and docs/security.md show (run `npm run docs` after changing it)', () => {
    for (const [file, text] of renderedPages()) expect(readFileSync(file, 'utf8'), file).toBe(text);
  });

  it('declares every setting the functions read, on the local stage and on a deployed one, and each one they read is declared', () => {
    // The names come from watching readConfig read an environment, never from a list kept beside it.
    const read = new Set<string>();
    const watched = (values: Record<string, string>) =>
      new Proxy(values, {
        get: (target, name) => {
          if (typeof name === 'string') read.add(name);
          return typeof name === 'string' ? target[name] : undefined;
        },
      });
    readConfig(watched({}));
    readConfig(watched({ STAGE: 'prod', SMS_QUEUE_URL: 'https://sqs.example/queue' }));
    // What a function reads: every declared setting but the deploy's own parameters and npm start's ports (PORT names the local issuer).
    const functionSettings = (Object.keys(SETTINGS) as SettingName[]).filter(
      (name) => !['parameter', 'start'].includes(sourceOf(name)) || name === 'PORT',
    );
    expect([...read].filter((name) => name !== 'AWS_DEFAULT_REGION').sort()).toEqual(functionSettings.sort());
  });
});
