// Access tokens as another service of the wallet meets them (API contract 3.12): it knows only the
// issuer's URL, finds the JWKS through the discovery document, and verifies offline with a plain
// JOSE library; no code of this project is on the verifying side. Then a refresh over HTTP.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { sampleRegistration } from '../helpers.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method: 'POST',
    headers: { CompanyID: service.company.company_id, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

describe('access tokens over HTTP through serverless-offline', () => {
  it('are verified by jose against the JWKS the discovery document names, cached as the headers allow', async () => {
    const registered = await post('/wallet/v3/auth/user_register', sampleRegistration());
    expect(registered.status, service.server.output()).toBe(200);
    const token: string = registered.body.data.token.token;

    // The verifying service's side: the issuer's URL, jose, nothing else.
    const issuer = service.server.env.TOKEN_ISSUER!;
    const discovery = await fetch(`${issuer}/.well-known/openid-configuration`);
    expect(discovery.status).toBe(200);
    expect(discovery.headers.get('cache-control')).toBe('public, max-age=300');
    const { jwks_uri, issuer: named } = (await discovery.json()) as { jwks_uri: string; issuer: string };
    expect(named).toBe(issuer);
    const keys = createRemoteJWKSet(new URL(jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(token, keys, { issuer, audience: 'wallet', algorithms: ['ES256'] });
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: registered.body.data.user_id, cid: service.company.company_id, amr: ['register'] });

    // A token altered on its way fails the same verification.
    const [header, body, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(body!, 'base64url').toString());
    const altered = `${header}.${Buffer.from(JSON.stringify({ ...claims, utp: 1 })).toString('base64url')}.${signature}`;
    await expect(jwtVerify(altered, keys, { issuer, audience: 'wallet' })).rejects.toThrow();
  });

  it('refreshes into a new pair that our own routes take, and ends the session when the spent token comes back', async () => {
    const registered = await post('/wallet/v3/auth/user_register', sampleRegistration());
    const refreshed = await post(
      '/wallet/v3/auth/token/refresh',
      { refresh_token: registered.body.data.refresh_token },
      { 'Idempotency-Key': 'r-1' },
    );
    expect(refreshed.status, service.server.output()).toBe(200);
    // The same request again (its answer lost): the same pair.
    const replayed = await post(
      '/wallet/v3/auth/token/refresh',
      { refresh_token: registered.body.data.refresh_token },
      { 'Idempotency-Key': 'r-1' },
    );
    expect(replayed.body.data).toEqual(refreshed.body.data);
    const devices = (authorization: string) =>
      fetch(`${service.server.baseUrl}/wallet/v3/auth/devices`, {
        headers: { CompanyID: service.company.company_id, Authorization: authorization },
      }).then((response) => response.status);
    expect(await devices(`Bearer ${refreshed.body.data.token.token}`)).toBe(200);
    // Within the grace, the spent token again without the key: its successor again, nothing ended.
    const again = await post('/wallet/v3/auth/token/refresh', { refresh_token: registered.body.data.refresh_token });
    expect(again.body.data.refresh_token).toBe(refreshed.body.data.refresh_token);
    // The successor spent, the first token is no longer the one just spent.
    expect((await post('/wallet/v3/auth/token/refresh', { refresh_token: refreshed.body.data.refresh_token })).status).toBe(200);
    // Reuse: 401, and the whole session is over.
    const reused = await post('/wallet/v3/auth/token/refresh', { refresh_token: registered.body.data.refresh_token });
    expect(reused.status).toBe(401);
    expect(reused.body.error).toEqual([4]);
    expect(await devices(`Bearer ${refreshed.body.data.token.token}`)).toBe(401);
  });
});
