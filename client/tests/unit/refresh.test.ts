import { describe, expect, it } from 'vitest';
import { createWalletAuthClient, type Session, WalletAuthError } from '../../src/index.js';
import { BASE_URL, COMPANY, countingStorage, PROFILE_PATH, SESSION_KEY, sessionService } from './fake-fetch.js';

// The client's refresh against a fake fetch: the refreshed session taken from the refresh's answer,
// one refresh for every call at once and for every client over one storage, and a session the
// service ends forgotten.

/** A client over `storage` holding `session`, calling the fake service. */
async function signedIn(service: ReturnType<typeof sessionService>, session: Session, storage = countingStorage()) {
  await storage.storage.set(SESSION_KEY, JSON.stringify(session));
  storage.reset();
  let ended = 0;
  const client = createWalletAuthClient({
    baseUrl: BASE_URL,
    companyId: COMPANY,
    storage: storage.storage,
    fetch: service.fetch,
    onSessionEnd: () => ended++,
  });
  return { client, storage, ended: () => ended };
}

const kept = async (storage: ReturnType<typeof countingStorage>) => JSON.parse(String(await storage.storage.get(SESSION_KEY))) as Session;

describe('a refresh', () => {
  it('takes the refreshed session from its answer: three storage trips for a call whose token expired (read, read under the lock, keep)', async () => {
    const service = sessionService();
    const { client, storage } = await signedIn(service, service.session(-1000));
    expect(await client.request('GET', PROFILE_PATH)).toEqual({ message: 'OK', path: PROFILE_PATH });
    expect(storage.trips).toEqual({ get: 2, set: 1, remove: 0 });
    // The call went with the new access token at once.
    expect(service.seen.map(({ path, headers }) => [path, headers.Authorization])).toEqual([
      ['/wallet/v3/auth/token/refresh', undefined],
      [PROFILE_PATH, 'Token access-2'],
    ]);
    expect(await kept(storage)).toMatchObject({ accessToken: 'access-2', refreshToken: 'refresh-2', userId: 'a'.repeat(32) });
    expect((await kept(storage)).expiresAt).toBeGreaterThan(Date.now() + 800_000);
  });

  it('is made before a token within 30 s of its expiry is sent, and accessToken() answers the new one', async () => {
    const service = sessionService();
    const { client, storage } = await signedIn(service, service.session(29_000));
    expect(await client.auth.accessToken()).toBe('access-2');
    expect(storage.trips).toEqual({ get: 2, set: 1, remove: 0 });
    const { client: later } = await signedIn(service, service.session(31_000));
    expect(await later.auth.accessToken()).toBe('access-2');
    expect(service.refreshes()).toHaveLength(1);
  });

  it('is one for ten calls at once whose token expired', async () => {
    const service = sessionService();
    const { client } = await signedIn(service, service.session(-1000));
    const answers = await Promise.all(Array.from({ length: 10 }, () => client.request('GET', PROFILE_PATH)));
    expect(answers).toHaveLength(10);
    expect(service.refreshes()).toHaveLength(1);
    expect(
      service.seen
        .filter((request) => request.path === PROFILE_PATH)
        .every((request) => request.headers.Authorization === 'Token access-2'),
    ).toBe(true);
  });

  it('is one for ten calls at once whose token the service refused, each then sent again', async () => {
    const service = sessionService();
    const { client } = await signedIn(service, { ...service.session(), accessToken: 'refused' });
    await Promise.all(Array.from({ length: 10 }, () => client.request('GET', PROFILE_PATH)));
    expect(service.refreshes()).toHaveLength(1);
    const sent = service.seen.filter((request) => request.path === PROFILE_PATH).map((request) => request.headers.Authorization);
    expect(sent.filter((token) => token === 'Token refused')).toHaveLength(10);
    expect(sent.filter((token) => token === 'Token access-2')).toHaveLength(10);
  });

  it('is one for two clients over one storage whose calls were refused at once (two tabs of one page)', async () => {
    const service = sessionService();
    const storage = countingStorage();
    const { client: first } = await signedIn(service, { ...service.session(), accessToken: 'refused' }, storage);
    const second = createWalletAuthClient({ baseUrl: BASE_URL, companyId: COMPANY, storage: storage.storage, fetch: service.fetch });
    await Promise.all([first.request('GET', PROFILE_PATH), second.request('GET', PROFILE_PATH), first.request('GET', PROFILE_PATH)]);
    expect(service.refreshes()).toHaveLength(1);
    expect((await kept(storage)).refreshToken).toBe('refresh-2');
  });

  it('is none for a call refused with a token another client has replaced since: it takes the kept session', async () => {
    const service = sessionService();
    const storage = countingStorage();
    const stale = service.session();
    const { client: first } = await signedIn(service, stale, storage);
    await first.auth.refreshTokens();
    // A second client's call that read the stale session before the refresh was kept, then was refused.
    let sent = 0;
    const second = createWalletAuthClient({
      baseUrl: BASE_URL,
      companyId: COMPANY,
      storage: {
        get: async (key) => (sent++ === 0 ? JSON.stringify(stale) : storage.storage.get(key)),
        set: storage.storage.set,
        remove: storage.storage.remove,
      },
      fetch: service.fetch,
    });
    expect(await second.request('GET', PROFILE_PATH)).toMatchObject({ message: 'OK' });
    expect(service.refreshes()).toHaveLength(1);
  });

  it('refused (401) forgets the session and says so, once', async () => {
    const service = sessionService();
    const { client, storage, ended } = await signedIn(service, { ...service.session(-1000), refreshToken: 'spent' });
    const error = await client.request('GET', PROFILE_PATH).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WalletAuthError);
    expect(error).toMatchObject({ status: 401, codes: [4], name: 'UNAUTHORIZED' });
    expect(ended()).toBe(1);
    expect(await storage.storage.get(SESSION_KEY)).toBeUndefined();
    expect(await client.auth.signedIn()).toBe(false);
  });
});

describe('a session kept fresh', () => {
  it('refreshes a token with less than validForMs left before it answers it, and sends nothing for one with more', async () => {
    const service = sessionService();
    // 15 minutes left: enough for 5 minutes, not for 20.
    const { client } = await signedIn(service, service.session(15 * 60_000));
    expect(await client.auth.accessToken({ validForMs: 5 * 60_000 })).toBe('access-1');
    expect(service.seen).toHaveLength(0);
    expect(await client.auth.accessToken({ validForMs: 20 * 60_000 })).toBe('access-2');
    expect(service.refreshes()).toHaveLength(1);
  });
});
