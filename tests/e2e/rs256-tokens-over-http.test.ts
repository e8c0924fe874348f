// An RS256 stage over HTTP (API contract 3.12, amended: ACCESS_TOKEN_ALG=RS256, what API Gateway's
// HTTP API JWT authorizer verifies): serverless-offline of its own, started with that setting and a
// key set of one RSA key, as npm start makes on a first start. A verifier knows only the issuer's
// URL and verifies with jose, pinned to RS256; no code of this project is on its side.
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { describe, expect, it } from 'vitest';
import { createTokenVerifier } from '../../client/src/index.js';
import { sampleRegistration } from '../helpers.js';
import { useOfflineService } from './offline-server.js';

const service = useOfflineService({ ACCESS_TOKEN_ALG: 'RS256' });

describe('an RS256 stage over HTTP through serverless-offline', () => {
  it('answers tokens that jose verifies with RS256 against the JWKS the discovery document names, and takes them as Bearer', async () => {
    const registered = await fetch(`${service.server.baseUrl}/wallet/v3/auth/user_register`, {
      method: 'POST',
      headers: { CompanyID: service.company.company_id, 'content-type': 'application/json' },
      body: JSON.stringify(sampleRegistration()),
    });
    expect(registered.status, service.server.output()).toBe(200);
    const { data } = (await registered.json()) as { data: { token: { token: string }; user_id: string } };
    const token = data.token.token;

    // The verifier's side: the issuer, its discovery document, its JWKS.
    const issuer = service.server.env.TOKEN_ISSUER!;
    const discovery = (await (await fetch(`${issuer}/.well-known/openid-configuration`)).json()) as Record<string, any>;
    expect(discovery).toMatchObject({
      issuer,
      jwks_uri: `${issuer}/.well-known/jwks.json`,
      id_token_signing_alg_values_supported: ['RS256'],
    });
    const published = (await (await fetch(discovery.jwks_uri)).json()) as { keys: Record<string, string>[] };
    expect(published.keys).toEqual([
      { kty: 'RSA', n: expect.stringMatching(/^[\w-]{342}$/), e: 'AQAB', kid: expect.any(String), alg: 'RS256', use: 'sig' },
    ]);

    const keys = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(token, keys, { issuer, audience: 'wallet', algorithms: ['RS256'] });
    expect(protectedHeader).toEqual({ alg: 'RS256', kid: published.keys[0]!.kid, typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: data.user_id, cid: service.company.company_id, amr: ['register'] });
    // A verifier that takes ES256 only refuses it: the algorithm is the stage's.
    await expect(jwtVerify(token, keys, { issuer, audience: 'wallet', algorithms: ['ES256'] })).rejects.toThrow();

    // The client library's verifier for the wallet's services takes it too.
    const verifier = createTokenVerifier({ issuer, audience: 'wallet', companyId: service.company.company_id });
    await expect(verifier.verify(token)).resolves.toMatchObject({ userId: data.user_id, companyId: service.company.company_id });

    // As API Gateway's JWT authorizer passes it on: "Bearer <token>", which our own routes take too.
    const devices = await fetch(`${service.server.baseUrl}/wallet/v3/auth/devices`, {
      headers: { CompanyID: service.company.company_id, Authorization: `Bearer ${token}` },
    });
    expect(devices.status).toBe(200);
  });
});
