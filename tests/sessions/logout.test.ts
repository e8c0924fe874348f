// Logout (API contract 3.5) and the lifetime of a session: an ended, idle or expired token
// answers 401 on its next call, and the last use is recorded at most once per touch interval.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Company } from '../../lib/companies/companies.js';
import { sessionKey } from '../../lib/store/keys.js';
import { touchSession } from '../../lib/store/session-store.js';
import { type Account, expectFailure, invoke, logIn, newCompany, sessionIdOf, signUp, testService, tokenStatus } from '../helpers.js';

// The session's lifetime is what these tests are about: access tokens that outlive a day let one
// token stand for its session (tests/sessions/token-refresh.test.ts renews short-lived ones).
const service = testService({ ACCESS_TOKEN_TTL_SECONDS: String(90 * 24 * 3600) });
let company: Company;

beforeAll(async () => {
  company = await newCompany(service);
});

afterEach(() => service.clock.reset());

const headers = (authorization?: string) => ({ CompanyID: company.company_id, ...(authorization ? { Authorization: authorization } : {}) });
const logout = (authorization: string | undefined, body?: unknown) =>
  invoke(service.handlers.logout, { path: '/wallet/v3/auth/logout', headers: headers(authorization), body });
const listReferrals = (authorization: string) =>
  invoke(service.handlers.referralProgram, { method: 'GET', path: '/p', headers: headers(authorization) });

/** A customer with three sessions: the registration's and two logins, a send interval apart. */
async function customerWithThreeSessions(): Promise<{ account: Account; sessions: string[] }> {
  const account = await signUp(service, company);
  const second = await logIn(service, company, account);
  service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
  const third = await logIn(service, company, account);
  return { account, sessions: [account.authorization, second, third] };
}

function sessionItem(account: Account, authorization: string) {
  const key = sessionKey(company.company_id, account.userId, sessionIdOf(authorization));
  return service.app.table.client.send(new GetCommand({ TableName: service.app.table.name, Key: key, ConsistentRead: true }));
}

describe('POST /wallet/v3/auth/logout', () => {
  it('ends the presented session by default (no body): revoked 1, that token 401 at once, the others still work', async () => {
    const { sessions } = await customerWithThreeSessions();
    const answer = await logout(sessions[0]);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ success: 1, error: [], data: { message: expect.any(String), revoked: 1 } });
    expectFailure(await listReferrals(sessions[0]!), 401, 4);
    expect([await tokenStatus(service, company, sessions[1]!), await tokenStatus(service, company, sessions[2]!)]).toEqual([200, 200]);
    // Logging out with an ended token is itself refused.
    expectFailure(await logout(sessions[0]), 401, 4);
  });

  it('scope "current" is the default spelled out; an empty or null scope counts as absent', async () => {
    const { sessions } = await customerWithThreeSessions();
    expect((await logout(sessions[0], { scope: 'current' })).body.data.revoked).toBe(1);
    expect((await logout(sessions[1], { scope: '' })).body.data.revoked).toBe(1);
    expect((await logout(sessions[2], { scope: null })).body.data.revoked).toBe(1);
    for (const session of sessions) expect(await tokenStatus(service, company, session)).toBe(401);
  });

  it('scope "others" ends every other session of the user and keeps this one', async () => {
    const { sessions } = await customerWithThreeSessions();
    const otherUser = await signUp(service, company);
    const answer = await logout(sessions[2], { scope: 'others' });
    expect(answer.body.data.revoked).toBe(2);
    expect(await Promise.all(sessions.map((session) => tokenStatus(service, company, session)))).toEqual([401, 401, 200]);
    // Nobody else's session is touched.
    expect(await tokenStatus(service, company, otherUser.authorization)).toBe(200);
  });

  it('scope "all" ends every session of the user, this one included', async () => {
    const { account, sessions } = await customerWithThreeSessions();
    const answer = await logout(sessions[1], { scope: 'all' });
    expect(answer.body.data.revoked).toBe(3);
    expect(await Promise.all(sessions.map((session) => tokenStatus(service, company, session)))).toEqual([401, 401, 401]);
    // Each is marked ended, and why (the stream's session.ended, API contract 3.13).
    for (const session of sessions) expect((await sessionItem(account, session)).Item?.ended_reason).toBe('logout_all');
    // A login after it is a new session, and it works.
    service.clock.advance(service.app.config.otp.sendIntervalSeconds + 1);
    expect(await tokenStatus(service, company, await logIn(service, company, account))).toBe(200);
  });

  it('counts only live sessions as revoked: an expired one DynamoDB has not deleted yet goes too, uncounted', async () => {
    const account = await signUp(service, company);
    // Fifteen days on, the registration's session is past its idle timeout; a new login is live.
    service.clock.advance(15 * 24 * 3600);
    const live = await logIn(service, company, account);
    const answer = await logout(live, { scope: 'all' });
    expect(answer.body.data.revoked).toBe(1);
    expect((await sessionItem(account, account.authorization)).Item?.ended_reason).toBe('logout_all');
  });

  it.each([{ scope: 'everything' }, { scope: 1 }, { scope: ['all'] }])('refuses scope %j with 400, code 1, on scope', async (body) => {
    const account = await signUp(service, company);
    const answer = await logout(account.authorization, body);
    expectFailure(answer, 400, 1);
    expect(answer.body.data.errors.map((error: { field: string }) => error.field)).toEqual(['scope']);
    expect(await tokenStatus(service, company, account.authorization)).toBe(200);
  });

  it('needs a token: 401 without one, or with one of another company', async () => {
    expectFailure(await logout(undefined), 401, 4);
    const other = await newCompany(service);
    const outsider = await signUp(service, other);
    expectFailure(await logout(outsider.authorization), 401, 4);
    expect(
      (
        await invoke(service.handlers.referralProgram, {
          method: 'GET',
          path: '/p',
          headers: { CompanyID: other.company_id, Authorization: outsider.authorization },
        })
      ).status,
    ).toBe(200);
  });
});

describe('session lifetime', () => {
  it('ends a session unused for 14 days (idle timeout), while one in use lives on', async () => {
    const idle = await signUp(service, company);
    const busy = await signUp(service, company);
    for (let day = 0; day < 13; day++) {
      service.clock.advance(24 * 3600);
      expect(await tokenStatus(service, company, busy.authorization)).toBe(200);
    }
    service.clock.advance(24 * 3600 + 1);
    expectFailure(await listReferrals(idle.authorization), 401, 4);
    expect(await tokenStatus(service, company, busy.authorization)).toBe(200);
  });

  it('records the last use at most once an hour, and writes nothing else', async () => {
    const account = await signUp(service, company);
    const first = (await sessionItem(account, account.authorization)).Item!;
    service.clock.advance(30 * 60);
    expect(await tokenStatus(service, company, account.authorization)).toBe(200);
    expect((await sessionItem(account, account.authorization)).Item).toEqual(first);
    service.clock.advance(31 * 60);
    expect(await tokenStatus(service, company, account.authorization)).toBe(200);
    const touched = (await sessionItem(account, account.authorization)).Item!;
    expect(touched.last_used_at).toBeGreaterThanOrEqual(first.last_used_at + 3600);
    expect(touched).toEqual({ ...first, last_used_at: touched.last_used_at });
  });

  it('never brings back a session ended between its read and the record of its use', async () => {
    const account = await signUp(service, company);
    const { Item: session } = await sessionItem(account, account.authorization);
    expect((await logout(account.authorization)).status).toBe(200);
    const key = { pk: session!.pk, sk: session!.sk };
    await touchSession(service.app.table, key, session!.last_used_at, session!.last_used_at + 3600);
    expect((await sessionItem(account, account.authorization)).Item?.ended_reason).toBe('logout');
    expect(await tokenStatus(service, company, account.authorization)).toBe(401);
  });

  it('ends a session 30 days after it began, however often it is used', async () => {
    const account = await signUp(service, company);
    for (let day = 0; day < 29; day++) {
      service.clock.advance(24 * 3600);
      expect(await tokenStatus(service, company, account.authorization)).toBe(200);
    }
    const session = (await sessionItem(account, account.authorization)).Item!;
    expect(session.expires_at).toBe(session.created_at + 30 * 24 * 3600);
    service.clock.advance(24 * 3600);
    expectFailure(await listReferrals(account.authorization), 401, 4);
  });
});
