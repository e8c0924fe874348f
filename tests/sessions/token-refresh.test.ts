// POST /wallet/v3/auth/token/refresh (API contract 3.12): a refresh token is spent once for a new
// pair; two refreshes of one token at once, one wins; a spent token presented again ends the
// session with a notice (event 7); the same request sent again with its Idempotency-Key answers
// the same pair; refresh tokens live and idle as their session does.
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { decodeJwt } from 'jose';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { epochSeconds } from '../../lib/clock.js';
import type { Company } from '../../lib/companies/companies.js';
import { sessionKey } from '../../lib/store/keys.js';
import { type Account, expectFailure, invoke, logIn, newCompany, signUp, testService, tokenStatus } from '../helpers.js';

const service = testService();
let company: Company;
let otherCompany: Company;

beforeAll(async () => {
  [company, otherCompany] = await Promise.all([newCompany(service), newCompany(service)]);
});

afterEach(() => service.clock.reset());

const refresh = (refreshToken: string, options: { key?: string; target?: Company } = {}) =>
  invoke(service.handlers.tokenRefresh, {
    path: '/wallet/v3/auth/token/refresh',
    headers: { CompanyID: (options.target ?? company).company_id, ...(options.key ? { 'Idempotency-Key': options.key } : {}) },
    body: { refresh_token: refreshToken },
  });

const sidOf = (account: Account) => decodeJwt(account.authorization.slice('Token '.length)).sid as string;

async function sessionOf(account: Account) {
  const { Item } = await service.app.table.client.send(
    new GetCommand({
      TableName: service.app.table.name,
      Key: sessionKey(company.company_id, account.userId, sidOf(account)),
      ConsistentRead: true,
    }),
  );
  return Item;
}

const notices = (authorization: string) =>
  invoke(service.handlers.notifications, {
    method: 'GET',
    path: '/wallet/v3/notifications',
    headers: { CompanyID: company.company_id, Authorization: authorization },
  });

describe('refreshing', () => {
  it('answers a new access token for the same session and a new refresh token; the old one is spent', async () => {
    const account = await signUp(service, company);
    // Stopped a minute on: the use the refresh records is this second.
    service.clock.freeze(epochSeconds(service.clock) + 60);
    const answer = await refresh(account.refreshToken);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const data = answer.body.data;
    expect(data).toEqual({
      message: expect.any(String),
      token: { type: 'Token', token: expect.any(String) },
      refresh_token: expect.stringMatching(/\.2\.1\./),
      expires_in: 900,
      user_id: account.userId,
    });
    const claims = decodeJwt(data.token.token);
    expect(claims).toMatchObject({ sub: account.userId, sid: sidOf(account), cid: company.company_id, amr: ['register'] });
    expect(await tokenStatus(service, company, `Token ${data.token.token}`)).toBe(200);
    // The session's last use moved; its lifetime did not.
    const session = await sessionOf(account);
    expect(session?.last_used_at).toBe(epochSeconds(service.clock));
    expect(session?.refresh_gen).toBe(2);
    // And again with the new one.
    expect((await refresh(data.refresh_token)).status).toBe(200);
  });

  it('gives two refreshes of one token sent at once the same successor, and ends nothing (contract 3.12, round 5)', async () => {
    const account = await signUp(service, company);
    const answers = await Promise.all([refresh(account.refreshToken), refresh(account.refreshToken)]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    const [one, two] = answers.map((answer) => answer.body.data) as [any, any];
    expect(one.refresh_token).toBe(two.refresh_token);
    expect((await sessionOf(account))?.ended_reason).toBeUndefined();
    for (const data of [one, two]) expect(await tokenStatus(service, company, `Token ${data.token.token}`)).toBe(200);
    // The one successor is the session's token: it refreshes once more.
    expect((await refresh(one.refresh_token)).status).toBe(200);
  });

  it('answers the token just spent, presented again within the grace, its successor again; past the grace it is reuse', async () => {
    const account = await signUp(service, company);
    // Stopped, so that the second presentation is exactly 10 s after the spend, not 11 across a second's edge.
    service.clock.freeze(epochSeconds(service.clock));
    const first = await refresh(account.refreshToken);
    service.clock.advance(10);
    const again = await refresh(account.refreshToken);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data.refresh_token).toBe(first.body.data.refresh_token);
    expect(again.body.data.token.token).not.toBe(first.body.data.token.token);
    expect((await sessionOf(account))?.ended_reason).toBeUndefined();
    // Once the successor itself was spent, the first token is no longer the one just spent: reuse.
    const second = await refresh(first.body.data.refresh_token);
    expect(second.status).toBe(200);
    expectFailure(await refresh(account.refreshToken), 401, 4);
    expect((await sessionOf(account))?.ended_reason).toBe('refresh_reuse');
  });

  it('ends the whole session on reuse of a spent token past the grace, with a security notice (event 7)', async () => {
    const account = await signUp(service, company);
    const first = await refresh(account.refreshToken);
    expect(first.status).toBe(200);
    const renewed = `Token ${first.body.data.token.token}`;
    service.clock.advance(11);
    // The stolen copy of the spent token is presented: 401, and every token of the session stops working.
    expectFailure(await refresh(account.refreshToken), 401, 4);
    expect((await sessionOf(account))?.ended_reason).toBe('refresh_reuse');
    expect(await tokenStatus(service, company, renewed)).toBe(401);
    expect(await tokenStatus(service, company, account.authorization)).toBe(401);
    expectFailure(await refresh(first.body.data.refresh_token), 401, 4);
    // The user is told, as a new login shows.
    const login = await logIn(service, company, account);
    const listed = (await notices(login)).body.data.notification;
    expect(listed.filter((notice: { notification_event_type: number }) => notice.notification_event_type === 7)).toHaveLength(1);
  });

  it('answers the same pair to the same request sent again with its Idempotency-Key, and that is no reuse', async () => {
    const account = await signUp(service, company);
    const first = await refresh(account.refreshToken, { key: 'refresh-1' });
    expect(first.status).toBe(200);
    const again = await refresh(account.refreshToken, { key: 'refresh-1' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(first.body.data);
    expect(await tokenStatus(service, company, `Token ${first.body.data.token.token}`)).toBe(200);
    // Under another key, past the grace, it is a new request: the spent token is reused, and the session ends.
    service.clock.advance(11);
    expectFailure(await refresh(account.refreshToken, { key: 'refresh-2' }), 401, 4);
    expect((await sessionOf(account))?.ended_reason).toBe('refresh_reuse');
  });

  it('refuses a made-up token with a session’s ids, without ending that session', async () => {
    const account = await signUp(service, company);
    const [userId, sid] = account.refreshToken.split('.');
    const madeUp = `${userId}.${sid}.1.1.${'A'.repeat(43)}.${'B'.repeat(43)}`;
    const olderMadeUp = `${userId}.${sid}.1.1.${'C'.repeat(43)}.${'D'.repeat(43)}`;
    expectFailure(await refresh(madeUp), 401, 4);
    expect((await refresh(account.refreshToken)).status).toBe(200);
    // Generation 1 is now spent, but a made-up generation-1 token was never issued: no reuse.
    expectFailure(await refresh(olderMadeUp), 401, 4);
    expect(await sessionOf(account)).toBeDefined();
    // Malformed ones are 401 too (no session to name), and an empty one is 400.
    expectFailure(await refresh('not-a-refresh-token'), 401, 4);
    expectFailure(await refresh(''), 400, 1);
  });

  it('refuses a token of another company, and does not end its session', async () => {
    const account = await signUp(service, company);
    expectFailure(await refresh(account.refreshToken, { target: otherCompany }), 401, 4);
    expect((await refresh(account.refreshToken)).status).toBe(200);
  });

  it('lives as its session: refused after the idle limit and after the lifetime, and after logout', async () => {
    const idle = await signUp(service, company);
    service.clock.advance(service.app.config.sessionIdleSeconds + 1);
    expectFailure(await refresh(idle.refreshToken), 401, 4);
    service.clock.reset();

    const used = await signUp(service, company);
    let token = used.refreshToken;
    // Refreshed every 13 days, it lives until its 30 days are up, and no longer.
    for (let day = 13; day < 30; day += 13) {
      service.clock.advance(13 * 86_400);
      const answer = await refresh(token);
      expect(answer.status).toBe(200);
      token = answer.body.data.refresh_token;
      expect(decodeJwt(answer.body.data.token.token).exp).toBeLessThanOrEqual(epochSeconds(service.clock) + 900);
    }
    service.clock.advance(5 * 86_400);
    expectFailure(await refresh(token), 401, 4);
    service.clock.reset();

    const loggedOut = await signUp(service, company);
    await invoke(service.handlers.logout, {
      path: '/wallet/v3/auth/logout',
      headers: { CompanyID: company.company_id, Authorization: loggedOut.authorization },
    });
    expectFailure(await refresh(loggedOut.refreshToken), 401, 4);
  });
});
