import { type DpopKey, dpopProof } from './dpop.js';
import { type Envelope, envelopeOf, WalletAuthError } from './errors.js';
import { OPERATION_ROUTES } from './generated/api-facts.js';
import { randomKey } from './random.js';
import { type Session, type SessionSlot, sessionIn } from './session-storage.js';
import { type Exclusive, sharedInPage, tabExclusive } from './shared-refresh.js';

// The one way the client calls the service (API contract 8): CompanyID, the access token and an
// Idempotency-Key of its own on every POST; the same request again, with the same key, after a lost
// answer, a 503 or a 409 code 20 "still at work"; one refresh, shared by every call at once and every
// client over the same storage (shared-refresh.ts), when the access token is expired or refused. The
// refreshed session is the refresh's answer: kept, and used at once, never read back.

/** Retries after the first try: the contract's "at most 3 times". */
const RETRIES = 3;
/** A wait the service asks for longer than this is not waited inside a call: the error goes to the caller. */
const LONGEST_WAIT_MS = 10_000;
/** An access token this close to its expiry is refreshed before it is sent. */
const EXPIRY_MARGIN_MS = 30_000;
const REFRESH_PATH = OPERATION_ROUTES.tokenRefresh[1];

export interface RequestOptions {
  /** Query parameters of a GET. */
  query?: Record<string, string | number | undefined>;
  /** An Idempotency-Key of the caller's; by default a random one per call, kept across its retries. */
  idempotencyKey?: string;
  /** Whether to send the session's access token (default: when there is one). */
  auth?: boolean;
}

export interface TransportOptions {
  baseUrl: string;
  companyId: string;
  session: SessionSlot;
  fetch: typeof fetch;
  /** Told when the service ends the session (a refusal no refresh cures) or the user logs out. */
  onSessionEnd?: () => void;
  sleep?: (ms: number) => Promise<void>;
  /** The lock that tabs over the same storage refresh under (default: Web Locks, else a BroadcastChannel's). */
  exclusive?: Exclusive;
  /**
   * The device key that signs a DPoP proof for every call, retries and refresh included (contract
   * 3.17): a login with a proof answers tokens bound to it. Undefined: no proofs, unbound tokens.
   */
  dpopKey?: (sessionIsBound: boolean) => Promise<DpopKey | undefined>;
}

export interface Transport {
  request<Data = Record<string, unknown>>(method: 'GET' | 'POST', path: string, body?: unknown, options?: RequestOptions): Promise<Data>;
  /** Refreshes the session now (shared with any refresh already under way). */
  refresh(): Promise<Session>;
  /**
   * The session, refreshed first when its access token is about to expire (or has less than
   * `validForMs` left, when given); undefined without one.
   */
  liveSession(validForMs?: number): Promise<Session | undefined>;
  /**
   * A POST made ready now, with the session as it is (its DPoP proof signed, for a bound one), and
   * sent at once when the answer is called, with no await before the request: what a page sends as it
   * goes (pagehide, keepalive), where a proof signed then would come too late. Its proof is good for
   * the service's DPOP_PROOF_MAX_AGE_SECONDS (60 s): make it again within that. Undefined without a session.
   */
  prepare(path: string, body: unknown): Promise<(() => void) | undefined>;
  /** The service's clock minus this device's, in ms, from the last answer's Date header (0 before any). */
  clockOffsetMs(): number;
}

/** What a call answered: its data, and the session it carried (kept), if any. */
interface Sent<Data> {
  data: Data;
  session: Session | undefined;
}

const unauthorized = () => new WalletAuthError(401, [4], { message: 'UNAUTHORIZED' });

interface Attempt {
  response?: Response;
  envelope?: Envelope;
  failure?: unknown;
}

/** The requests whose success ends the session that sent them. */
function endsOwnSession(path: string, body: unknown): boolean {
  if (path === OPERATION_ROUTES.userDelete[1]) return true;
  if (path !== OPERATION_ROUTES.logout[1]) return false;
  const scope = (body as { scope?: unknown } | undefined)?.scope;
  return scope === undefined || scope === null || scope === '' || scope === 'current' || scope === 'all';
}

function retryAfterSeconds(response: Response | undefined): number | undefined {
  const header = response?.headers.get('retry-after');
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - Date.now()) / 1000);
}

/** Whether the same request, with the same key, may be sent again: nothing was done, or what was done is kept under the key. */
function worthRetrying({ response, envelope, failure }: Attempt): boolean {
  if (failure !== undefined) return !(failure instanceof DOMException && failure.name === 'AbortError');
  if (response?.status === 503) return true;
  return response?.status === 409 && envelope?.error.includes(20) === true && response.headers.has('retry-after');
}

export function createTransport(options: TransportOptions): Transport {
  const baseUrl = options.baseUrl.replace(/\/+$/, '');
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const exclusive = options.exclusive ?? tabExclusive();
  let clockOffsetMs = 0;
  /** The latest DPoP-Nonce the service gave (RFC 9449 section 8), sent in the next proofs. */
  let dpopNonce: string | undefined;

  async function attempt(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<Attempt> {
    let response: Response;
    try {
      response = await options.fetch(url, { method, headers, body });
    } catch (failure) {
      return { failure };
    }
    const date = Date.parse(response.headers.get('date') ?? '');
    if (!Number.isNaN(date)) clockOffsetMs = date - Date.now();
    dpopNonce = response.headers.get('dpop-nonce') ?? dpopNonce;
    const parsed = await response.json().catch(() => undefined);
    return { response, envelope: envelopeOf(response.status, parsed) };
  }

  async function endSession(): Promise<void> {
    await options.session.forget();
    options.onSessionEnd?.();
  }

  /**
   * One refresh for everyone: the calls of this client, and the clients over the same storage (in
   * this page, and in other tabs under the lock). Whoever comes second reads the storage under the
   * lock and, finding the token replaced, takes that session without a second refresh.
   */
  function refreshShared(stale: Session | undefined): Promise<Session> {
    const { storage, key } = options.session;
    return sharedInPage(storage, key, () =>
      exclusive(`${key}:refresh`, async () => {
        const current = await options.session.read();
        if (!current) throw unauthorized();
        if (stale && current.accessToken !== stale.accessToken) return current;
        const bound = current.tokenType === 'DPoP';
        const { session } = await send('POST', REFRESH_PATH, { refresh_token: current.refreshToken }, { auth: false }, bound);
        if (!session) throw unauthorized();
        return session;
      }),
    );
  }

  /** The session as kept, or after the refresh its access token's near expiry calls for. */
  async function liveSession(kept: Session, validForMs = EXPIRY_MARGIN_MS): Promise<Session> {
    return kept.expiresAt - Math.max(validForMs, EXPIRY_MARGIN_MS) <= Date.now() ? refreshShared(kept) : kept;
  }

  /** A request's headers: the company, the session's token and, with a key, a DPoP proof made now for this method and URL. */
  async function headersFor(
    method: string,
    url: string,
    request: { session: Session | undefined; dpopKey: DpopKey | undefined; idempotencyKey: string | undefined; json: boolean },
  ): Promise<Record<string, string>> {
    const { session, dpopKey, idempotencyKey } = request;
    const headers: Record<string, string> = { CompanyID: options.companyId, Accept: 'application/json' };
    if (request.json) headers['Content-Type'] = 'application/json';
    if (idempotencyKey) headers['Idempotency-Key'] = idempotencyKey;
    const sendsBound = session?.tokenType === 'DPoP';
    if (session) headers.Authorization = `${sendsBound ? 'DPoP' : 'Token'} ${session.accessToken}`;
    if (dpopKey) {
      const nowSeconds = (Date.now() + clockOffsetMs) / 1000;
      headers.DPoP = await dpopProof(dpopKey, {
        method,
        url,
        accessToken: sendsBound ? session?.accessToken : undefined,
        nonce: dpopNonce,
        nowSeconds,
      });
    }
    return headers;
  }

  async function send<Data>(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    requestOptions: RequestOptions,
    /** A refresh of a bound session (its token is in the body, not in Authorization). */
    refreshesBound = false,
  ): Promise<Sent<Data>> {
    const query = Object.entries(requestOptions.query ?? {}).filter(([, value]) => value !== undefined && value !== '');
    const url = `${baseUrl}${path}${query.length ? `?${new URLSearchParams(query.map(([name, value]) => [name, String(value)]))}` : ''}`;
    const idempotencyKey = method === 'POST' ? (requestOptions.idempotencyKey ?? randomKey()) : undefined;
    const text = body === undefined ? undefined : JSON.stringify(body);
    const isRefresh = path === REFRESH_PATH;
    const kept = requestOptions.auth === false ? undefined : await options.session.read();
    let session = kept && (await liveSession(kept));
    let refreshed = session !== kept;
    // A bound session's calls always prove its key; the client decides for the others (a login, an unbound session).
    const bound = refreshesBound || session?.tokenType === 'DPoP';
    const dpopKey = await options.dpopKey?.(bound);
    let nonceAnswered = false;
    for (let retries = 0; ; ) {
      // A new proof for every try: the service takes each proof once.
      const headers = await headersFor(method, url, { session, dpopKey, idempotencyKey, json: text !== undefined });
      const answer = await attempt(method, url, headers, text);
      const { response, envelope } = answer;
      // The service asks for a nonce (its clock and ours differ, or the stage requires one): answered once, with a new proof.
      if (
        dpopKey &&
        !nonceAnswered &&
        response?.status === 401 &&
        /error="use_dpop_nonce"/.test(response.headers.get('www-authenticate') ?? '')
      ) {
        nonceAnswered = true;
        continue;
      }
      if (response && envelope?.success === 1 && response.ok) {
        const found = sessionIn(envelope.data, Date.now());
        if (found) await options.session.keep(found);
        else if (session && endsOwnSession(path, body)) await endSession();
        return { data: envelope.data as Data, session: found };
      }
      const wait = retryAfterSeconds(response);
      if (worthRetrying(answer) && retries < RETRIES && (wait === undefined || wait * 1000 <= LONGEST_WAIT_MS)) {
        await sleep(wait !== undefined ? wait * 1000 : 200 * 2 ** retries + Math.random() * 100);
        retries += 1;
        continue;
      }
      if (!response || !envelope) {
        throw new WalletAuthError(0, [], { message: 'NETWORK_ERROR' }, undefined, { cause: answer.failure });
      }
      const error = new WalletAuthError(response.status, envelope.error, envelope.data, wait);
      if (response.status === 401 && session && !refreshed && !isRefresh) {
        refreshed = true;
        session = await refreshShared(session);
        continue;
      }
      if (response.status === 401 && (session || isRefresh)) await endSession();
      throw error;
    }
  }

  const request: Transport['request'] = async (method, path, body, requestOptions = {}) =>
    (await send<never>(method, path, body, requestOptions)).data;

  return {
    request,
    refresh: async () => refreshShared(await options.session.read()),
    liveSession: async (validForMs) => {
      const kept = await options.session.read();
      return kept && liveSession(kept, validForMs);
    },
    clockOffsetMs: () => clockOffsetMs,
    prepare: async (path, body) => {
      const kept = await options.session.read();
      if (!kept) return undefined;
      const url = `${baseUrl}${path}`;
      const session = await liveSession(kept);
      const dpopKey = await options.dpopKey?.(session.tokenType === 'DPoP');
      const headers = await headersFor('POST', url, { session, dpopKey, idempotencyKey: randomKey(), json: true });
      const text = JSON.stringify(body);
      return () => {
        options.fetch(url, { method: 'POST', headers, body: text, keepalive: true }).catch(() => undefined);
      };
    },
  };
}
