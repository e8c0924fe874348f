import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { paths } from '../../client/src/generated/openapi.js';
import { lastCodeSentTo, sampleRegistration } from '../helpers.js';
import { expectDocumented } from './conformance.js';
import { type DocumentProxy, expectNoViolations, startDocumentProxy, type Violation, violationsOf } from './document-proxy.js';
import { useOfflineService } from './offline-server.js';

// Every call of this file goes through a validating proxy (Prism) holding docs/openapi.json:
// each request and answer must be one the document describes, checked by a validator of
// its own beside our ajv-based conformance check. Guessing a code (at most 5 of 40 sent at once
// compared, the code dead after) is tests/otp/otp.test.ts's, where no answer may be a 503: the
// tries are counted in DynamoDB, not in a container.
const service = useOfflineService();
let proxy: DocumentProxy;

beforeAll(async () => {
  proxy = await startDocumentProxy(service.server.baseUrl);
}, 60_000);
afterAll(() => proxy?.stop());

interface Exchange {
  status: number;
  headers: Headers;
  body: Record<string, any>;
  violations: Violation[];
}

/** A call through the proxy, answered as the document says; a call the document allows unless `outside` says otherwise. */
async function call(method: 'GET' | 'POST', path: string, init: { body?: unknown; headers?: Record<string, string>; outside?: true } = {}) {
  const json: Record<string, string> = init.body === undefined ? {} : { 'content-type': 'application/json' };
  const response = await fetch(`${proxy.baseUrl}${path}`, {
    method,
    headers: { CompanyID: service.company.company_id, ...json, ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const exchange: Exchange = {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, any>,
    violations: violationsOf(response),
  };
  expectDocumented({ method, path, ...exchange });
  if (!init.outside) expectNoViolations(response, `${method} ${path}`);
  return exchange;
}

const post = (path: string, body: unknown, headers: Record<string, string> = {}) => call('POST', path, { body, headers });
// serverless-offline drops the body of a GET, so user_id in a GET body (which API Gateway
// passes on) is tested in process, in tests/referrals.
const get = (path: string, headers: Record<string, string>) => call('GET', path, { headers });

describe('phone login over HTTP through serverless-offline', () => {
  it('registers, sends a code to the outbox, and verifies it into a working session', async () => {
    const registration = sampleRegistration();
    const registered = await post('/wallet/v3/auth/user_register', registration);
    expect(registered.status, service.server.output()).toBe(200);

    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    const sent = await post('/wallet/v3/auth/login_phone', target);
    expect(sent.status, service.server.output()).toBe(200);
    expect(sent.body).toEqual({ success: 1, error: [], data: { message: expect.any(String), expires_in: 300 } });

    const code = lastCodeSentTo(service.server.local, `+1${String(registration.phone_number)}`);
    const wrong = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code === '000000' ? '000001' : '000000' });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toEqual([9]);

    const verified = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code });
    expect(verified.status).toBe(200);
    expect(verified.body.data.user_id).toBe(registered.body.data.user_id);
    expect(verified.headers.get('cache-control')).toBe('no-store');

    // The session's token works on the referral list.
    const listed = await get('/wallet/v3/reward_promotion/referral_program', { Authorization: `Token ${verified.body.data.token.token}` });
    expect(listed.status).toBe(200);
    expect(listed.body.data.referral_code).toBe(registered.body.data.referral_code);
  });
});

describe('the referral list over HTTP through serverless-offline', () => {
  it('shows A two referrals newest first and pages them with limit=1', async () => {
    const a = await post('/wallet/v3/auth/user_register', sampleRegistration());
    const auth = { Authorization: `Token ${a.body.data.token.token}` };
    for (const firstName of ['Bea', 'Cal']) {
      const referred = await post(
        '/wallet/v3/auth/user_register',
        sampleRegistration({ first_name: firstName, referral_code: a.body.data.referral_code }),
      );
      expect(referred.status).toBe(200);
    }
    const all = await get('/wallet/v3/reward_promotion/referral_program', auth);
    expect(all.status, service.server.output()).toBe(200);
    expect(all.body.data.referral_count).toBe(2);
    expect(all.body.data.notification.map((n: { notification_body: string }) => n.notification_body)).toEqual([
      expect.stringContaining('Cal'),
      expect.stringContaining('Bea'),
    ]);

    const first = await get('/wallet/v3/reward_promotion/referral_program?limit=1', auth);
    const second = await get(
      `/wallet/v3/reward_promotion/referral_program?limit=1&cursor=${encodeURIComponent(first.body.data.next_cursor)}`,
      auth,
    );
    expect([...first.body.data.notification, ...second.body.data.notification]).toEqual(all.body.data.notification);
    expect(second.body.data.next_cursor).toBeNull();

    const byUserId = await get(`/wallet/v3/reward_promotion/referral_program?user_id=${a.body.data.user_id}`, auth);
    expect(byUserId.body).toEqual(all.body);

    // Without a token the call is outside the document (its security needs one): only that is found, and the 401 is documented.
    const anonymous = await call('GET', '/wallet/v3/reward_promotion/referral_program', { outside: true });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ success: 0, error: [4], data: { message: 'UNAUTHORIZED' } });
    expect(anonymous.violations).toEqual([expect.objectContaining({ location: ['request'], code: 401 })]);
  });

  it('takes limit as a number from a client generated from the document (openapi-typescript, openapi-fetch)', async () => {
    const owner = await post('/wallet/v3/auth/user_register', sampleRegistration());
    await post('/wallet/v3/auth/user_register', sampleRegistration({ referral_code: owner.body.data.referral_code }));
    await post('/wallet/v3/auth/user_register', sampleRegistration({ referral_code: owner.body.data.referral_code }));
    const client = createClient<paths>({ baseUrl: proxy.baseUrl });
    const header = { CompanyID: service.company.company_id };
    const path = '/wallet/v3/reward_promotion/referral_program';
    const { data, response } = await client.GET(path, {
      params: { header, query: { limit: 1 } },
      headers: { Authorization: `Token ${owner.body.data.token.token}` },
    });
    expect(new URL(response.url).searchParams.get('limit')).toBe('1');
    expect(response.status, service.server.output()).toBe(200);
    expectNoViolations(response, `GET ${path}`);
    expectDocumented({ method: 'GET', path, status: response.status, headers: response.headers, body: data });
    expect(data!.data.notification).toHaveLength(1);
    expect(data!.data.next_cursor).toEqual(expect.any(String));
    // Checked by tsc (npm test): the generated type of limit is a number, and a string is refused.
    // @ts-expect-error a string is no limit
    const stringLimit: NonNullable<paths[typeof path]['get']['parameters']['query']>['limit'] = '1';
    void stringLimit;
  });
});

describe('logout over HTTP through serverless-offline', () => {
  it('ends every other session with scope "others", then this one with no body at all', async () => {
    const registration = sampleRegistration();
    const registered = await post('/wallet/v3/auth/user_register', registration);
    const target = { dial_code: '+1', phone_number: registration.phone_number, user_type: 2, otp_type: 1 };
    expect((await post('/wallet/v3/auth/login_phone', target)).status).toBe(200);
    const code = lastCodeSentTo(service.server.local, `+1${String(registration.phone_number)}`);
    const verified = await post('/wallet/v3/auth/verify_otp', { ...target, otp: code });
    const [first, second] = [registered, verified].map((answer) => ({ Authorization: `Token ${answer.body.data.token.token}` }));

    const others = await post('/wallet/v3/auth/logout', { scope: 'others' }, second);
    expect(others.status, service.server.output()).toBe(200);
    expect(others.body.data.revoked).toBe(1);
    expect((await get('/wallet/v3/reward_promotion/referral_program', first!)).status).toBe(401);
    expect((await get('/wallet/v3/reward_promotion/referral_program', second!)).status).toBe(200);

    // Contract 3.5: the body is optional; none means scope "current".
    const bodiless = await call('POST', '/wallet/v3/auth/logout', { headers: second });
    expect(bodiless.status).toBe(200);
    expect(bodiless.body.data.revoked).toBe(1);
    expect((await get('/wallet/v3/reward_promotion/referral_program', second!)).status).toBe(401);
  });
});
