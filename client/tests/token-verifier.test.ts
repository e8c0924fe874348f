import { describe, expect, it } from 'vitest';
import { createTokenVerifier, createWalletAuthClient, type TokenVerifier, type WalletAuthError } from '../src/index.js';
import { recordingFetch, useClientService } from './service.js';

// The services' part: a token verified offline against the service's JWKS over HTTP.

const service = useClientService();

async function issuer(): Promise<string> {
  const discovery = await fetch(`${service.baseUrl}/.well-known/openid-configuration`);
  return ((await discovery.json()) as { issuer: string }).issuer;
}

async function registeredClient(companyId = service.companyId) {
  // Unbound tokens, as verify() takes them: a bound one's proof is verifyRequest's (docs-examples.test.ts).
  const client = createWalletAuthClient({ baseUrl: service.baseUrl, companyId, dpop: false });
  await client.auth.register(service.registration() as never);
  return client;
}

const refusal = (verifier: TokenVerifier, token: string) => verifier.verify(token).catch((error: unknown) => error as WalletAuthError);

describe('createTokenVerifier', () => {
  it('accepts live tokens with one fetch of the JWKS for all of them', async () => {
    const recorder = recordingFetch();
    const verifier = createTokenVerifier({
      issuer: await issuer(),
      audience: 'wallet',
      companyId: service.companyId,
      fetch: recorder.fetch,
    });
    const clients = await Promise.all([registeredClient(), registeredClient(), registeredClient()]);
    for (const client of clients) {
      const verified = await verifier.verify(String(await client.auth.accessToken()));
      expect(verified).toMatchObject({ userId: await client.auth.userId(), companyId: service.companyId, userType: 2, amr: ['register'] });
      expect(verified.sessionId).toMatch(/^[0-9a-f]{32}$/);
    }
    expect(recorder.calls.filter((call) => call.url.endsWith('/.well-known/jwks.json'))).toHaveLength(1);
  });

  it("refuses another company's token, a token for another audience, and a forged one", async () => {
    const verifier = createTokenVerifier({ issuer: await issuer(), audience: 'wallet', companyId: service.companyId });
    const theirs = await registeredClient(await service.otherCompanyId());
    const token = String(await theirs.auth.accessToken());
    expect(await refusal(verifier, token)).toMatchObject({ status: 401, codes: [4], name: 'UNAUTHORIZED', data: { reason: 'company' } });
    // The same token verifies for a verifier of every company: the refusal was the company's.
    await expect(createTokenVerifier({ issuer: await issuer(), audience: 'wallet' }).verify(token)).resolves.toBeDefined();

    const elsewhere = createTokenVerifier({ issuer: await issuer(), audience: 'payments' });
    expect(await refusal(elsewhere, token)).toMatchObject({ status: 401, data: { reason: 'ERR_JWT_CLAIM_VALIDATION_FAILED' } });

    const ours = String(await (await registeredClient()).auth.accessToken());
    const [header, claims, signature] = ours.split('.') as [string, string, string];
    const widened = btoa(JSON.stringify({ ...JSON.parse(atob(claims.replace(/-/g, '+').replace(/_/g, '/'))), utp: 1 }))
      .replace(/\+/g, '-')
      .replace(/\//g, '_')
      .replace(/=+$/, '');
    expect(await refusal(verifier, `${header}.${widened}.${signature}`)).toMatchObject({
      status: 401,
      data: { reason: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' },
    });
  });

  it('refuses a session it was told has ended (a session.ended event) before its token expires', async () => {
    const verifier = createTokenVerifier({ issuer: await issuer(), audience: 'wallet', companyId: service.companyId });
    const client = await registeredClient();
    const token = String(await client.auth.accessToken());
    const { sessionId } = await verifier.verify(token);
    await client.auth.logout();
    // Offline verification cannot know of the logout by itself: the event tells it.
    await expect(verifier.verify(token)).resolves.toBeDefined();
    verifier.sessionEnded({
      'detail-type': 'session.ended',
      detail: { company_id: service.companyId, user_id: await client.auth.userId(), sid: sessionId, reason: 'logout' },
    } as never);
    expect(await refusal(verifier, token)).toMatchObject({ status: 401, data: { reason: 'session_ended' } });
    // Another session of the same company is still accepted.
    await expect(verifier.verify(String(await (await registeredClient()).auth.accessToken()))).resolves.toBeDefined();
  });
});
