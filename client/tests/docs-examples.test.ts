import { readFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWalletAuthClient } from '../src/index.js';
import { useClientService } from './service.js';

// The examples of docs/client-apps.md and docs/client-services.md are client/examples/*.ts word for
// word, and run here against the service over HTTP.

const service = useClientService();
const ROOT = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(resolve(ROOT, path), 'utf8');

describe.each([
  ['docs/client-apps.md', 'client/examples/app-sign-in.ts'],
  ['docs/client-services.md', 'client/examples/service-verify.ts'],
  ['docs/client-services.md', 'client/examples/service-dpop.ts'],
])('%s', (page, example) => {
  it(`shows ${example} as it is`, () => {
    expect(read(page)).toContain(`\`\`\`ts\n${read(example)}\`\`\``);
  });
});

describe('the examples, run', () => {
  it('signs in by code with a bound device, then by PIN alone', async () => {
    const { signInThenUsePin } = await import('../examples/app-sign-in.js');
    const registration = service.registration();
    await createWalletAuthClient({ baseUrl: service.baseUrl, companyId: service.companyId }).auth.register(registration as never);
    const phone = `+1${registration.phone_number}`;
    const readCode = async () => service.lastCode(phone);
    const signedIn = await signInThenUsePin(
      service.baseUrl,
      service.companyId,
      registration.phone_number,
      readCode,
      String(registration.login_pin),
    );
    expect(signedIn).toMatchObject({ locked: false, devices: 1, user: { phone_number: registration.phone_number } });
  });

  it('verifies a live token, and refuses it once its session.ended event came', async () => {
    const discovery = (await (await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).json()) as { issuer: string };
    process.env.WALLET_AUTH_ISSUER = discovery.issuer;
    process.env.WALLET_COMPANY_ID = service.companyId;
    const { caller, onSessionEnded } = await import('../examples/service-verify.js');
    // An unbound session: its token alone is a bearer token, which verify takes.
    const client = service.client({ dpop: false });
    await client.auth.register(service.registration() as never);
    const authorization = `Bearer ${await client.auth.accessToken()}`;
    const who = await caller(authorization);
    expect(who.userId).toBe(await client.auth.userId());

    await onSessionEnded({ detail: { company_id: service.companyId, sid: who.sessionId } });
    await expect(caller(authorization)).rejects.toMatchObject({ status: 401, name: 'UNAUTHORIZED', data: { reason: 'session_ended' } });
  });

  it('takes a bound token only with the phone’s proof for that service’s URL (node:http, verifyRequest)', async () => {
    const discovery = (await (await fetch(`${service.baseUrl}/.well-known/openid-configuration`)).json()) as { issuer: string };
    const { paymentsService } = await import('../examples/service-dpop.js');
    // A free port first: the service's public base URL names it.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const server = paymentsService(discovery.issuer, service.companyId, `http://127.0.0.1:${port}`);
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const client = service.client();
      await client.auth.register(service.registration() as never);
      const url = `http://127.0.0.1:${port}/v1/pay`;
      const headers = await client.auth.authorizationFor('POST', url);
      expect(headers.Authorization).toMatch(/^DPoP /);
      const paid = await fetch(url, { method: 'POST', headers });
      expect([paid.status, await paid.json()]).toEqual([200, { user_id: await client.auth.userId(), bound: true }]);
      // The same proof again, the token alone, or as Bearer: refused, with the DPoP challenge.
      for (const copied of [
        headers,
        { Authorization: headers.Authorization as string },
        { Authorization: `Bearer ${await client.auth.accessToken()}` },
      ]) {
        const refused = await fetch(url, { method: 'POST', headers: copied });
        expect(refused.status).toBe(401);
        expect(refused.headers.get('www-authenticate')).toMatch(/^DPoP /);
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
