// Tokens bound to the phone's key (DPoP, contract 3.17) over HTTP through serverless-offline: the
// access token and refresh token of a bound session, copied by someone without the key, are
// refused on every route of the route table and by another service's verifier (verifyRequest),
// while the phone with its key goes on.
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier } from '../../client/src/token-verifier.js';
import { endpoints } from '../../lib/api/endpoints.js';
import { type DpopKey, dpopProof, newDpopKey } from '../harness/dpop-proofs.js';
import { sampleRegistration } from '../helpers.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService();

interface HttpAnswer {
  status: number;
  headers: Headers;
  body: Record<string, any>;
}

async function call(method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<HttpAnswer> {
  const response = await fetch(`${service.server.baseUrl}${path}`, {
    method,
    headers: { CompanyID: service.company.company_id, 'content-type': 'application/json', ...headers },
    ...(method === 'POST' ? { body: JSON.stringify(body ?? {}) } : {}),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

/** A proof for a call to this server: htu is the URL the client calls (locally, the request's own host). */
const proofFor = (key: DpopKey, method: string, path: string, accessToken?: string) =>
  dpopProof(key, { htm: method, htu: `${service.server.baseUrl}${path}`, ...(accessToken ? { accessToken } : {}) });

async function boundSession(key: DpopKey) {
  const path = endpoints.userRegister.path;
  const answer = await call('POST', path, { DPoP: await proofFor(key, 'POST', path) }, sampleRegistration());
  expect(answer.status, service.server.output().slice(-2000)).toBe(200);
  return {
    token: answer.body.data.token.token as string,
    refreshToken: answer.body.data.refresh_token as string,
    type: answer.body.data.token.type,
  };
}

describe('a bound session over HTTP', () => {
  it('answers DPoP tokens whose cnf.jkt is the key’s thumbprint, and the phone’s own calls pass', async () => {
    const key = await newDpopKey();
    const session = await boundSession(key);
    expect(session.type).toBe('DPoP');
    expect(decodeJwt(session.token).cnf).toEqual({ jkt: key.jkt });
    const path = endpoints.userProfile.path;
    const own = await call('GET', path, { Authorization: `DPoP ${session.token}`, DPoP: await proofFor(key, 'GET', path, session.token) });
    expect(own.status).toBe(200);
  });

  it('refuses its copied access token on every route that reads a token: as Bearer, without a proof, with the thief’s key', async () => {
    const key = await newDpopKey();
    const thief = await newDpopKey();
    const { token } = await boundSession(key);
    const routes = Object.entries(endpoints).filter(([, endpoint]) => endpoint.auth !== 'none');
    expect(routes.length).toBeGreaterThan(30);
    for (const [name, { method, path }] of routes) {
      const attempts: Record<string, string>[] = [
        { Authorization: `Bearer ${token}` },
        { Authorization: `Token ${token}` },
        { Authorization: `DPoP ${token}` },
        { Authorization: `DPoP ${token}`, DPoP: await proofFor(thief, method, path, token) },
      ];
      for (const headers of attempts) {
        const answer = await call(method, path, headers);
        expect([name, Object.keys(headers).join('+'), answer.status, answer.body.error]).toEqual([
          name,
          Object.keys(headers).join('+'),
          401,
          [4],
        ]);
        expect(answer.headers.get('www-authenticate')).toMatch(/^DPoP /);
      }
    }
  });

  it('refuses its copied refresh token without the key (none, the thief’s), and the phone still refreshes after', async () => {
    const key = await newDpopKey();
    const { refreshToken } = await boundSession(key);
    const path = endpoints.tokenRefresh.path;
    const copies: Record<string, string>[] = [{}, { DPoP: await proofFor(await newDpopKey(), 'POST', path) }];
    for (const headers of copies) {
      const answer = await call('POST', path, headers, { refresh_token: refreshToken });
      expect([answer.status, answer.body.error]).toEqual([401, [4]]);
      expect(answer.headers.get('www-authenticate')).toMatch(/^DPoP /);
    }
    const own = await call('POST', path, { DPoP: await proofFor(key, 'POST', path) }, { refresh_token: refreshToken });
    expect(own.status).toBe(200);
    expect(own.body.data.token.type).toBe('DPoP');
  });

  it('is refused by another service’s verifier without the key, and accepted with a proof for that service’s URL', async () => {
    const key = await newDpopKey();
    const { token } = await boundSession(key);
    const verifier = createTokenVerifier({ issuer: service.server.env.TOKEN_ISSUER!, audience: 'wallet' });
    const url = 'https://payments.example.com/v1/pay';
    const request = (headers: Record<string, string>) => verifier.verifyRequest({ method: 'POST', url, headers });
    const proof = (signer: DpopKey, options: { url?: string; method?: string } = {}) =>
      dpopProof(signer, { htm: options.method ?? 'POST', htu: options.url ?? url, accessToken: token });
    await expect(verifier.verify(token)).rejects.toMatchObject({ status: 401, codes: [4] });
    await expect(request({ authorization: `Bearer ${token}` })).rejects.toMatchObject({ status: 401 });
    await expect(request({ authorization: `DPoP ${token}` })).rejects.toMatchObject({ status: 401 });
    await expect(request({ authorization: `DPoP ${token}`, dpop: await proof(await newDpopKey()) })).rejects.toMatchObject({ status: 401 });
    await expect(
      request({ authorization: `DPoP ${token}`, dpop: await proof(key, { url: 'https://other.example.com/v1/pay' }) }),
    ).rejects.toMatchObject({
      status: 401,
    });
    await expect(request({ authorization: `DPoP ${token}`, dpop: await proof(key, { method: 'GET' }) })).rejects.toMatchObject({
      status: 401,
    });
    const good = await proof(key);
    await expect(request({ authorization: `DPoP ${token}`, dpop: good })).resolves.toMatchObject({ jkt: key.jkt });
    // The same proof again: replayed.
    await expect(request({ authorization: `DPoP ${token}`, dpop: good })).rejects.toMatchObject({ status: 401 });
  });

  it('answers a DPoP header over 8 KB 413', async () => {
    const path = endpoints.userRegister.path;
    const answer = await call('POST', path, { DPoP: 'a'.repeat(8193) }, sampleRegistration());
    expect([answer.status, answer.body.error]).toEqual([413, [13]]);
  });
});
