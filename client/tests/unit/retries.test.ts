import { describe, expect, it } from 'vitest';
import { memoryStorage, WalletAuthError } from '../../src/index.js';
import { callOperation } from '../../src/operations.js';
import { SessionSlot } from '../../src/session-storage.js';
import { createTransport } from '../../src/transport.js';
import { answer, BASE_URL, COMPANY, envelope, PROFILE_PATH, refusal, SESSION_KEY, type SeenRequest, scriptedFetch } from './fake-fetch.js';

// The answers the service gives only under load or faults (503, 409 code 20 "still at work", API
// Gateway's bare 429, a connection cut), scripted by a fake fetch. The transport's sleep records each
// wait instead of sleeping it: what is waited is read, not timed.

function transportOver(script: (request: SeenRequest, call: number) => Response | Promise<Response>) {
  const { fetch, seen } = scriptedFetch(script);
  const waits: number[] = [];
  const transport = createTransport({
    baseUrl: BASE_URL,
    companyId: COMPANY,
    session: new SessionSlot(memoryStorage(), SESSION_KEY),
    fetch,
    sleep: async (ms) => void waits.push(ms),
  });
  const sendCode = () => callOperation(transport, 'loginPhone', { dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1 });
  return { transport, seen, waits, sendCode };
}

const ok = envelope({ message: 'OTP sent' });
const unavailable = refusal(16, 'SERVICE_UNAVAILABLE');
const keys = (seen: SeenRequest[]) => seen.map((request) => request.headers['Idempotency-Key']);

describe('retries', () => {
  it('send the same request with the same key after a 503 and after a 409 code 20 with Retry-After, waiting what each asked', async () => {
    const { seen, waits, sendCode } = transportOver((_request, call) => {
      if (call === 1) return answer(503, unavailable, { 'retry-after': '1' });
      if (call === 2) return answer(409, refusal(20, 'CONFLICT'), { 'retry-after': '2' });
      return answer(200, ok);
    });
    await expect(sendCode()).resolves.toEqual({ message: 'OTP sent' });
    expect(seen).toHaveLength(3);
    expect(new Set(keys(seen)).size).toBe(1);
    expect(keys(seen)[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen[0]?.headers).toMatchObject({ CompanyID: COMPANY, 'Content-Type': 'application/json', Accept: 'application/json' });
    expect(waits).toEqual([1000, 2000]);
  });

  it('read a Retry-After given as an HTTP date', async () => {
    const { waits, sendCode } = transportOver((_request, call) =>
      call === 1 ? answer(503, unavailable, { 'retry-after': new Date(Date.now() + 5_000).toUTCString() }) : answer(200, ok),
    );
    await sendCode();
    expect(waits).toHaveLength(1);
    // The date is in whole seconds: 4 to 5 s from when it was written, less what has passed since.
    expect(waits[0]).toBeGreaterThan(3_000);
    expect(waits[0]).toBeLessThanOrEqual(5_000);
  });

  it('stop after three and throw the last refusal', async () => {
    const { seen, waits, sendCode } = transportOver(() => answer(503, unavailable, { 'retry-after': '0' }));
    const error = await sendCode().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WalletAuthError);
    expect(error).toMatchObject({ status: 503, codes: [16], name: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 0 });
    expect(seen).toHaveLength(4);
    expect(waits).toEqual([0, 0, 0]);
  });

  it('back off 200, 400 and 800 ms (and up to 100 ms more) without a Retry-After, after a connection cut; then NETWORK_ERROR with the cause', async () => {
    const cut = new TypeError('fetch failed');
    const { transport, seen, waits } = transportOver(() => Promise.reject(cut));
    const error = (await transport
      .request('POST', '/wallet/v3/auth/login_phone', {})
      .catch((thrown: unknown) => thrown)) as WalletAuthError;
    expect(error).toMatchObject({ status: 0, codes: [], name: 'NETWORK_ERROR' });
    expect(error.cause).toBe(cut);
    expect(seen).toHaveLength(4);
    expect(new Set(keys(seen)).size).toBe(1);
    expect(waits).toHaveLength(3);
    waits.forEach((wait, retry) => {
      expect(wait).toBeGreaterThanOrEqual(200 * 2 ** retry);
      expect(wait).toBeLessThan(200 * 2 ** retry + 100);
    });
  });

  it('are none for a call the caller aborted', async () => {
    const { transport, seen } = transportOver(() => Promise.reject(new DOMException('aborted', 'AbortError')));
    expect(await transport.request('GET', PROFILE_PATH).catch((thrown: unknown) => thrown)).toMatchObject({ name: 'NETWORK_ERROR' });
    expect(seen).toHaveLength(1);
  });

  it('are none for a 409 code 20 without Retry-After (the key was used with another body)', async () => {
    const { seen, sendCode } = transportOver(() => answer(409, refusal(20, 'CONFLICT')));
    expect(await sendCode().catch((thrown: unknown) => thrown)).toMatchObject({ status: 409, name: 'IDEMPOTENCY_KEY_REUSED' });
    expect(seen).toHaveLength(1);
  });

  it('hand a wait longer than 10 s to the caller, with the seconds asked for', async () => {
    const { seen, waits, sendCode } = transportOver(() => answer(503, unavailable, { 'retry-after': '120' }));
    expect(await sendCode().catch((thrown: unknown) => thrown)).toMatchObject({ status: 503, retryAfterSeconds: 120 });
    expect(seen).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("read API Gateway's bare 429 as code 12, and send it once", async () => {
    const { seen, sendCode } = transportOver(() => answer(429, { message: 'Too Many Requests' }));
    expect(await sendCode().catch((thrown: unknown) => thrown)).toMatchObject({ status: 429, codes: [12], name: 'TOO_MANY_REQUESTS' });
    expect(seen).toHaveLength(1);
  });

  it('send a GET with no key and no body, its query in the URL', async () => {
    const { transport, seen } = transportOver(() => answer(200, envelope({ notification: [] })));
    await transport.request('GET', '/wallet/v3/auth/notifications', undefined, { query: { limit: 5, cursor: undefined, empty: '' } });
    expect(seen).toEqual([
      {
        method: 'GET',
        path: '/wallet/v3/auth/notifications',
        query: '?limit=5',
        headers: { CompanyID: COMPANY, Accept: 'application/json' },
        body: undefined,
      },
    ]);
  });
});
