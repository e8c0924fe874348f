import { decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { createWalletAuthClient, memoryKeyStore, memoryStorage, type Session } from '../../src/index.js';
import { answer, BASE_URL, COMPANY, envelope, PROFILE_PATH, SESSION_KEY, scriptedFetch } from './fake-fetch.js';

// The device key a session is bound to (DPoP, contract 3.17) is loaded once and held for the
// client's life: when the browser's storage loses it meanwhile (another tab of the same origin, or
// "clear site data"), the page's bound session keeps proving the key it was bound to, where a new
// key would only get the session refused. forgetDevice drops it.

const boundSession: Session = {
  accessToken: 'access-1',
  refreshToken: 'refresh-1',
  expiresAt: Date.now() + 900_000,
  userId: 'a'.repeat(32),
  tokenType: 'DPoP',
};

async function boundClient() {
  const storage = memoryStorage();
  await storage.set(SESSION_KEY, JSON.stringify(boundSession));
  const keys = memoryKeyStore();
  const service = scriptedFetch(() => answer(200, envelope({ first_name: 'Ada' })));
  const client = createWalletAuthClient({ baseUrl: BASE_URL, companyId: COMPANY, storage, deviceKeys: keys, fetch: service.fetch });
  const proofKey = (index: number) => JSON.stringify(decodeProtectedHeader(service.seen[index]!.headers.DPoP!).jwk);
  return { client, keys, seen: service.seen, proofKey };
}

describe('the device key a bound session proves', () => {
  it('stays the same when the key store loses it meanwhile', async () => {
    const { client, keys, seen, proofKey } = await boundClient();
    await client.request('GET', PROFILE_PATH);
    await keys.remove(`wallet-auth:${COMPANY}`);
    await client.request('GET', PROFILE_PATH);
    expect(seen).toHaveLength(2);
    expect(proofKey(1)).toBe(proofKey(0));
  });

  it('is a new one after forgetDevice', async () => {
    const { client, proofKey } = await boundClient();
    await client.request('GET', PROFILE_PATH);
    await client.auth.forgetDevice();
    await client.request('GET', PROFILE_PATH);
    expect(proofKey(1)).not.toBe(proofKey(0));
  });
});
