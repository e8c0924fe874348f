import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletAuthClient, WalletAuthError } from '../src/index.js';

// The answers the service gives only under load or faults (503, 409 code 20 "still at work",
// API Gateway's bare 429), from a small HTTP server of the test's own, which answers what each test scripts.

type Script = (request: IncomingMessage, response: ServerResponse, call: number) => void;
let script: Script = (_request, response) => response.end();
let seen: { key: string | undefined; at: number }[] = [];
let baseUrl = '';
const server = createServer((request, response) => {
  seen.push({ key: request.headers['idempotency-key'] as string | undefined, at: Date.now() });
  request.resume().on('end', () => script(request, response, seen.length));
});

beforeAll(async () => {
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

const COMPANY = '0123456789abcdef0123456789abcdef';
const answer = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const failure = (code: number, message: string) => ({ success: 0, error: [code], data: { message } });
const ok = { success: 1, error: [], data: { message: 'OTP sent' } };
const client = () => createWalletAuthClient({ baseUrl, companyId: COMPANY });
const sendCode = () => client().auth.sendCode({ dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1 });

describe('retries', () => {
  it('sends the same request with the same key after a 503 and after a 409 code 20 with Retry-After, honouring the wait', async () => {
    seen = [];
    script = (_request, response, call) => {
      if (call === 1) return answer(response, 503, failure(16, 'SERVICE_UNAVAILABLE'), { 'retry-after': '1' });
      if (call === 2) return answer(response, 409, failure(20, 'CONFLICT'), { 'retry-after': '1' });
      answer(response, 200, ok);
    };
    await expect(sendCode()).resolves.toEqual({ message: 'OTP sent' });
    expect(seen).toHaveLength(3);
    expect(new Set(seen.map((request) => request.key)).size).toBe(1);
    expect((seen[1]?.at ?? 0) - (seen[0]?.at ?? 0)).toBeGreaterThanOrEqual(950);
    expect((seen[2]?.at ?? 0) - (seen[1]?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it('stops after three retries and throws the last refusal', async () => {
    seen = [];
    script = (_request, response) => answer(response, 503, failure(16, 'SERVICE_UNAVAILABLE'), { 'retry-after': '0' });
    const error = await sendCode().catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(WalletAuthError);
    expect(error).toMatchObject({ status: 503, codes: [16], name: 'SERVICE_UNAVAILABLE', retryAfterSeconds: 0 });
    expect(seen).toHaveLength(4);
  });

  it('does not send again a 409 code 20 without Retry-After (the key was used with another body)', async () => {
    seen = [];
    script = (_request, response) => answer(response, 409, failure(20, 'CONFLICT'));
    expect(await sendCode().catch((thrown: unknown) => thrown)).toMatchObject({ status: 409, name: 'IDEMPOTENCY_KEY_REUSED' });
    expect(seen).toHaveLength(1);
  });

  it('hands a wait longer than it keeps a call open to the caller, with the seconds asked for', async () => {
    seen = [];
    script = (_request, response) => answer(response, 503, failure(16, 'SERVICE_UNAVAILABLE'), { 'retry-after': '120' });
    expect(await sendCode().catch((thrown: unknown) => thrown)).toMatchObject({ status: 503, retryAfterSeconds: 120 });
    expect(seen).toHaveLength(1);
  });

  it("reads API Gateway's bare 429 as code 12, and sends it once", async () => {
    seen = [];
    script = (_request, response) => answer(response, 429, { message: 'Too Many Requests' });
    expect(await sendCode().catch((thrown: unknown) => thrown)).toMatchObject({ status: 429, codes: [12], name: 'TOO_MANY_REQUESTS' });
    expect(seen).toHaveLength(1);
  });

  it('sends again after a connection cut before the answer, then throws NETWORK_ERROR with the cause', async () => {
    seen = [];
    script = (request) => request.socket.destroy();
    const error = (await sendCode().catch((thrown: unknown) => thrown)) as WalletAuthError;
    expect(error).toMatchObject({ status: 0, codes: [], name: 'NETWORK_ERROR' });
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((request) => request.key)).size).toBe(1);
  });
});

describe('a session kept fresh', () => {
  it('refreshes a token with less than validForMs left before it answers it, and sends nothing for one with more', async () => {
    seen = [];
    const paths: string[] = [];
    const session = (token: string) => ({ token: { token }, refresh_token: `r-${token}`, expires_in: 900, user_id: 'u' });
    script = (request, response) => {
      paths.push(String(request.url));
      answer(response, 200, { success: 1, error: [], data: session(`t${seen.length}`) });
    };
    const fresh = client();
    await fresh.auth.verifyCode({ dial_code: '+1', phone_number: '2025550143', user_type: 2, otp_type: 1, otp: '123456' });
    // 15 minutes left: enough for 5 minutes, not for 20.
    expect(await fresh.auth.accessToken({ validForMs: 5 * 60_000 })).toBe('t1');
    expect(paths).toHaveLength(1);
    expect(await fresh.auth.accessToken({ validForMs: 20 * 60_000 })).toBe('t2');
    expect(paths.at(-1)).toBe('/wallet/v3/auth/token/refresh');
  });
});
