import { decodeJwt, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createWalletAuthClient, memoryKeyStore, memoryStorage, type Session } from '../../src/index.js';
import { answer, BASE_URL, COMPANY, envelope, SESSION_KEY, scriptedFetch } from './fake-fetch.js';

// A logout made ready ahead (client.auth.prepareLogout): what a page sends as it goes (pagehide),
// where nothing may be awaited before the request. A bound session's proof (DPoP, contract 3.17) is
// signed when it is made ready; calling it sends at once, keepalive.

const LOGOUT_PATH = '/wallet/v3/auth/logout';

async function clientHolding(session: Session | undefined, dpop = true) {
  const storage = memoryStorage();
  if (session) await storage.set(SESSION_KEY, JSON.stringify(session));
  const keepalive: (boolean | undefined)[] = [];
  const service = scriptedFetch(() => answer(200, envelope({ message: 'Logged out' })));
  const client = createWalletAuthClient({
    baseUrl: BASE_URL,
    companyId: COMPANY,
    storage,
    deviceKeys: memoryKeyStore(),
    dpop,
    fetch: (input, init) => {
      keepalive.push(init?.keepalive);
      return service.fetch(input, init);
    },
  });
  return { client, seen: service.seen, keepalive };
}

const session = (tokenType?: 'DPoP'): Session => ({
  accessToken: 'access-1',
  refreshToken: 'refresh-1',
  expiresAt: Date.now() + 900_000,
  userId: 'a'.repeat(32),
  ...(tokenType ? { tokenType } : {}),
});

describe('a logout made ready', () => {
  it('of a bound session carries a proof signed ahead for the logout, and goes on the call itself, keepalive', async () => {
    const { client, seen, keepalive } = await clientHolding(session('DPoP'));
    const send = await client.auth.prepareLogout();
    expect(seen).toHaveLength(0);
    send!();
    // Sent within the call: nothing awaited first.
    expect(seen).toHaveLength(1);
    expect(keepalive).toEqual([true]);
    const [request] = seen;
    expect(request).toMatchObject({ method: 'POST', path: LOGOUT_PATH, body: {} });
    expect(request!.headers).toMatchObject({ Authorization: 'DPoP access-1', CompanyID: COMPANY });
    expect(request!.headers['Idempotency-Key']).toMatch(/^[\w-]{16,}$/);
    expect(decodeProtectedHeader(request!.headers.DPoP!)).toMatchObject({ typ: 'dpop+jwt', alg: 'ES256' });
    const claims = decodeJwt(request!.headers.DPoP!);
    const accessTokenHash = Buffer.from(await crypto.subtle.digest('SHA-256', new TextEncoder().encode('access-1'))).toString('base64url');
    expect(claims).toMatchObject({ htm: 'POST', htu: `${BASE_URL}${LOGOUT_PATH}`, ath: accessTokenHash });
    expect(Math.abs(Number(claims.iat) - Date.now() / 1000)).toBeLessThan(5);
  });

  it('of an unbound session in a client that binds none sends its token with no proof; without a session there is none', async () => {
    const { client, seen } = await clientHolding(session(), false);
    (await client.auth.prepareLogout({ scope: 'current' }))!();
    expect(seen[0]!.headers.Authorization).toBe('Token access-1');
    expect(seen[0]!.headers.DPoP).toBeUndefined();
    expect(seen[0]!.body).toEqual({ scope: 'current' });
    const { client: none } = await clientHolding(undefined);
    expect(await none.auth.prepareLogout()).toBeUndefined();
  });
});
