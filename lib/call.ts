import type { Company } from './companies/companies.js';
import type { RequestOrigin } from './observability/audit.js';
import type { Acr, SessionStart } from './store/session-store.js';

/** Who a valid token speaks for, and which session it is. */
export interface Principal {
  companyId: string;
  userId: string;
  userType: number;
  /** The session's id: the access token's `sid` (or, for an opaque token from before 3.12, its SHA-256). */
  sessionId: string;
  /**
   * How and when (epoch seconds) the session began, the device it is bound to, how strong it is
   * (API contract 3.15) and when it was last proven (its start, or a step-up since: auth_time).
   */
  session?: {
    began: SessionStart | undefined;
    beganAt: number;
    deviceKey: string | undefined;
    acr: Acr;
    authTime: number;
    /** When the credential it began with (a device, a passkey) was bound, epoch seconds: older than a recovery, it may cancel one. */
    credentialAt: number | undefined;
    /** The key its tokens are bound to (DPoP, contract 3.17), if any: its RFC 7638 thumbprint. */
    dpopJkt?: string | undefined;
  };
}

/**
 * What every domain function takes beside the app: its validated input, who calls for which
 * company, and from where. The HTTP chain builds one per request (lib/http/api-handler.ts,
 * ApiCall); an operator command builds its own.
 */
export interface Call<Body, Query = Record<string, never>, Caller extends Principal | undefined = Principal | undefined> {
  body: Body;
  query: Query;
  company: Company;
  principal: Caller;
  origin: RequestOrigin;
}

/** What a call made by a request also knows: how long it may still take. */
export interface RequestTime {
  /** Milliseconds before the request is answered 503 for running out of time: work that waits ends sooner. */
  timeLeftMs: () => number;
}

/** How long an Idempotency-Key remembers its first outcome; after it, the same request is a new request. */
export const IDEMPOTENCY_WINDOW_SECONDS = 24 * 3600;

/**
 * How long a credential (a session, a refresh token, a phone proof) a request answered may be handed
 * out again to a retry of that request (contract 3.10, amended in round 5): the life of what the first
 * run spent (a PIN login's signed timestamp, a code). Every link from a request to a credential it
 * answered (a registration's phone claim, a refresh's rotation) is honoured this long and no longer.
 */
export const CREDENTIAL_REPLAY_SECONDS = 300;

/** What a call made by a request also carries when it sent an Idempotency-Key (lib/http/idempotency.ts). */
export interface RequestKey {
  /** Names the request (its Idempotency-Key and its body), when it sent a key: what a lost first run left behind is recognised by it. */
  idempotencyRef?: string | undefined;
}

/** What a call made by a request also carries when it sent a valid DPoP proof (contract 3.17, lib/http/dpop.ts). */
export interface RequestProof {
  /** The proof's key (its RFC 7638 thumbprint): a login or refresh binds the tokens it answers to it. */
  dpop?: { jkt: string } | undefined;
}
