// What an on-call engineer reads, as the functions write it under serverless-offline: every log
// and EMF line carries its Lambda request id, each security outcome is one audit event with its
// metric, and the server secret comes from SSM Parameter Store, read once per container, with a
// 503 (code 16) in the envelope and a log line saying why while it cannot be read.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { type FakeSsm, startFakeSsm } from '../harness/ssm-fake.js';
import { lastCodeSentTo, newCompany, sampleRegistration, standalone } from '../helpers.js';
import { OFFLINE_START_TIMEOUT_MS, type OfflineServer, startOffline } from './offline-server.js';

const PARAMETER = '/wallet-auth/test/server-secret';
const USER_AGENT = 'WalletApp/5.1 (e2e)';
let ssm: FakeSsm;
let server: OfflineServer;
let company: Company;

beforeAll(async () => {
  ssm = await startFakeSsm();
  // Every line at INFO, the audit events included.
  server = await startOffline({ LOG_LEVEL: 'INFO' }, { ssmEndpoint: ssm.endpoint, parameter: PARAMETER });
  company = await newCompany(server.local);
}, OFFLINE_START_TIMEOUT_MS);

afterAll(async () => {
  await server?.stop();
  await ssm?.close();
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${server.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT, CompanyID: company.company_id, ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

type Line = Record<string, any>;

/** The JSON lines the functions have written since a mark (the service's own: logs and EMF both name it). */
function linesSince(mark: number): Line[] {
  return server
    .output()
    .slice(mark)
    .split('\n')
    .map((text) => text.slice(text.indexOf('{')))
    .flatMap((text) => {
      try {
        return [JSON.parse(text) as Line];
      } catch {
        return [];
      }
    })
    .filter((line) => line.service === 'wallet-auth');
}

const auditEvents = (lines: Line[]) => lines.filter((line) => line.message === 'audit');
const emfMetrics = (lines: Line[]) =>
  lines
    .filter((line) => line._aws)
    .flatMap((line) => line._aws.CloudWatchMetrics[0].Metrics.map((metric: { Name: string }) => metric.Name));

/** Where the output ends once what earlier calls wrote has all arrived (nothing new for 300 ms). */
async function markAfterQuiet(): Promise<number> {
  for (let length = -1; length !== server.output().length; ) {
    length = server.output().length;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return server.output().length;
}

/** Waits for serverless-offline to pass on what a function wrote (it arrives through a pipe), as long as it takes: the test's timeout bounds it. */
async function settled(mark: number, until: (lines: Line[]) => boolean): Promise<Line[]> {
  while (!until(linesSince(mark))) await new Promise((resolve) => setTimeout(resolve, 100));
  return linesSince(mark);
}

describe('a function without its secret', () => {
  it('answers 503 code 16 in the envelope and logs why, then recovers once the parameter exists, without a restart', async () => {
    const mark = await markAfterQuiet();
    const refused = await call('POST', '/wallet/v3/auth/user_register', sampleRegistration());
    expect(refused.status, server.output().slice(mark)).toBe(503);
    expect(refused.body).toEqual({ success: 0, error: [16], data: { message: 'SERVICE_UNAVAILABLE' } });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    const lines = await settled(mark, (found) => found.some((line) => line.message === 'server secret unavailable'));
    const why = lines.find((line) => line.message === 'server secret unavailable');
    expect(why).toMatchObject({ level: 'ERROR', function_request_id: expect.any(String), cold_start: true });
    expect(why!.reason).toContain(PARAMETER);
    expect(why!.reason).toContain('ParameterNotFound');

    ssm.put(PARAMETER, randomBytes(32).toString('base64'));
    expect((await call('POST', '/wallet/v3/auth/user_register', sampleRegistration())).status).toBe(200);
  });
});

describe('the secret in SSM Parameter Store', () => {
  it('is read once per container: five registrations, one GetParameter at most', async () => {
    ssm.requests.length = 0;
    for (let index = 0; index < 5; index++)
      expect((await call('POST', '/wallet/v3/auth/user_register', sampleRegistration())).status).toBe(200);
    expect(ssm.requests.length).toBeLessThanOrEqual(1);
  });

  it('rotates: after a new version, what the old one made still verifies (a code sent before, verified after)', async () => {
    const registration = sampleRegistration();
    expect((await call('POST', '/wallet/v3/auth/user_register', registration)).status).toBe(200);
    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    expect((await call('POST', '/wallet/v3/auth/login_phone', target)).status).toBe(200);
    const code = lastCodeSentTo(server.local, `+1${String(registration.phone_number)}`);
    const version = ssm.put(PARAMETER, randomBytes(32).toString('hex'));
    expect(version).toBe(2);
    // verify_otp's first container starts now: version 2 is its current one, and it reads version 1 for the old code.
    ssm.requests.length = 0;
    const verified = await call('POST', '/wallet/v3/auth/verify_otp', { ...target, otp: code });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(ssm.requests.sort()).toEqual([PARAMETER, `${PARAMETER}:1`]);
  });
});

describe('log lines, audit events and metrics of each flow', () => {
  it('writes each security outcome as one audit event with its metric, every line with its request id', async () => {
    const mark = await markAfterQuiet();
    const registration = sampleRegistration();
    const phone = `+1${String(registration.phone_number)}`;
    const registered = await call('POST', '/wallet/v3/auth/user_register', registration);
    expect(registered.status).toBe(200);
    const userId = registered.body.data.user_id;

    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    expect((await call('POST', '/wallet/v3/auth/login_phone', target)).status).toBe(200);
    const code = lastCodeSentTo(server.local, phone);
    expect((await call('POST', '/wallet/v3/auth/login_phone', target)).status).toBe(429);
    const wrong = code === '000000' ? '000001' : '000000';
    expect((await call('POST', '/wallet/v3/auth/verify_otp', { ...target, otp: wrong })).status).toBe(400);
    const verified = await call('POST', '/wallet/v3/auth/verify_otp', { ...target, otp: code });
    expect(verified.status).toBe(200);
    const authorization = `Token ${verified.body.data.token.token}`;
    expect((await call('POST', '/wallet/v3/auth/logout', { scope: 'all' }, { Authorization: authorization })).status).toBe(200);

    const expected = ['user_registered', 'code_sent', 'limited', 'code_failed', 'code_verified', 'login', 'logout', 'sessions_revoked'];
    const lines = await settled(mark, (found) => auditEvents(found).length >= expected.length);
    const events = auditEvents(lines);
    expect(events.map((event) => event.audit_event)).toEqual(expected);

    // A ref names its key version; the containers started after the rotation (verify_otp's) use version 2.
    const refs = new Map<string, string>();
    for (const event of events.filter((found) => found.phone_ref !== undefined)) {
      const [version, ref] = event.phone_ref.split('.');
      expect(event.phone_ref).toMatch(/^[12]\.[0-9a-f]{16}$/);
      // A phone is named by its ref only, the same ref in every event of one key version.
      expect(refs.get(version) ?? ref, event.audit_event).toBe(ref);
      refs.set(version, ref);
    }
    expect(refs.size).toBe(2);
    for (const event of events) {
      expect(event, event.audit_event).toMatchObject({
        level: 'INFO',
        company_id: company.company_id,
        source_ip: '127.0.0.1',
        user_agent: USER_AGENT,
        outcome: expect.any(String),
        function_request_id: expect.any(String),
        function_name: expect.any(String),
        cold_start: expect.any(Boolean),
      });
    }
    expect(events.filter((event) => event.audit_event !== 'limited').map((event) => [event.audit_event, event.user_id])).toEqual(
      expected.filter((name) => name !== 'limited').map((name) => [name, userId]),
    );
    expect(events.find((event) => event.audit_event === 'limited')).toMatchObject({ limit: 'phone_interval', outcome: 'refused' });
    expect(events.find((event) => event.audit_event === 'code_failed')).toMatchObject({ outcome: 'wrong_code' });
    // scope all: the registration's session and the login's.
    expect(events.find((event) => event.audit_event === 'logout')).toMatchObject({ revoked: 2 });

    expect(emfMetrics(lines).sort()).toEqual(['codes_failed', 'codes_verified', 'limited', 'registrations', 'sms_sent']);
    const limited = lines.find((line) => line._aws && line.limited === 1);
    expect(limited).toMatchObject({ limit: 'phone_interval', service: 'wallet-auth' });
    expect(limited!._aws.CloudWatchMetrics[0]).toMatchObject({ Namespace: 'WalletAuth', Dimensions: [['service', 'limit']] });

    // Every line a function wrote carries the request it belongs to; none holds a secret or the phone.
    for (const line of lines) expect(line.function_request_id, JSON.stringify(line)).toEqual(expect.any(String));
    const text = JSON.stringify(lines);
    for (const secret of [verified.body.data.token.token, registration.password, phone]) expect(text).not.toContain(String(secret));
    // A code or PIN is a few digits, found by chance inside ids and timestamps: matched as a value of its own.
    for (const digits of [code, String(registration.login_pin)]) expect(text).not.toMatch(standalone(digits));
  });
});
