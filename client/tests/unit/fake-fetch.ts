import { OPERATION_ROUTES } from '../../src/generated/api-facts.js';
import { memoryStorage, type Session, type SessionStorage } from '../../src/index.js';

// What the client's unit tests call instead of the network: a fetch that answers from a script, and
// a small service of sessions behind one (token/refresh rotates the pair; every other route wants the
// live access token). Nothing listens on a port; every answer is a Response, as fetch gives.

export const COMPANY = '0123456789abcdef0123456789abcdef';
export const BASE_URL = 'https://auth.example.test';
export const SESSION_KEY = `wallet-auth:${COMPANY}:session`;
export const REFRESH_PATH = OPERATION_ROUTES.tokenRefresh[1];
export const PROFILE_PATH = OPERATION_ROUTES.userProfile[1];

/** A request as the fake fetch saw it. */
export interface SeenRequest {
  method: string;
  path: string;
  /** The URL's query, with its `?` (empty without one). */
  query: string;
  headers: Record<string, string>;
  body: Record<string, unknown> | undefined;
}

export const envelope = (data: Record<string, unknown>) => ({ success: 1, error: [], data });
export const refusal = (code: number, message: string) => ({ success: 0, error: [code], data: { message } });

/** A JSON answer with its status and headers. */
export function answer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** A fetch that records each request and answers what `script` says for it (`call` counts from 1). */
export function scriptedFetch(script: (request: SeenRequest, call: number) => Response | Promise<Response>) {
  const seen: SeenRequest[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const text = typeof init?.body === 'string' ? init.body : undefined;
    const request: SeenRequest = {
      method: init?.method ?? 'GET',
      path: url.pathname,
      query: url.search,
      headers: { ...(init?.headers as Record<string, string>) },
      body: text === undefined ? undefined : JSON.parse(text),
    };
    seen.push(request);
    // Answered on a later turn, as the network does: calls made at once are all under way together.
    await new Promise((turn) => setTimeout(turn, 1));
    return script(request, seen.length);
  };
  return { fetch, seen };
}

/**
 * A service of one user's session: token/refresh spends the refresh token it gets and answers a new
 * pair (a spent one: 401 code 4); any other route answers 200 to the live access token, 401 to another.
 */
export function sessionService(userId = 'a'.repeat(32)) {
  let generation = 1;
  const live = () => ({ accessToken: `access-${generation}`, refreshToken: `refresh-${generation}` });
  const service = scriptedFetch(({ path, headers, body }) => {
    if (path === REFRESH_PATH) {
      if (body?.refresh_token !== live().refreshToken) return answer(401, refusal(4, 'UNAUTHORIZED'));
      generation += 1;
      return answer(
        200,
        envelope({
          token: { type: 'Token', token: live().accessToken },
          refresh_token: live().refreshToken,
          expires_in: 900,
          user_id: userId,
        }),
      );
    }
    if (headers.Authorization !== `Token ${live().accessToken}`) return answer(401, refusal(4, 'UNAUTHORIZED'));
    return answer(200, envelope({ message: 'OK', path }));
  });
  return {
    ...service,
    live,
    /** The session a client keeps for the live pair, its access token expiring `expiresInMs` from now. */
    session: (expiresInMs = 900_000): Session => ({ ...live(), expiresAt: Date.now() + expiresInMs, userId }),
    refreshes: () => service.seen.filter((request) => request.path === REFRESH_PATH),
  };
}

/** A storage that counts its trips: each get, set and remove. */
export function countingStorage(inner: SessionStorage = memoryStorage()) {
  const trips = { get: 0, set: 0, remove: 0 };
  const storage: SessionStorage = {
    get: (key) => {
      trips.get += 1;
      return inner.get(key);
    },
    set: (key, value) => {
      trips.set += 1;
      return inner.set(key, value);
    },
    remove: (key) => {
      trips.remove += 1;
      return inner.remove(key);
    },
  };
  return { storage, trips, reset: () => Object.assign(trips, { get: 0, set: 0, remove: 0 }) };
}
