import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify } from 'jose';
import { WalletAuthError } from './errors.js';

// For the wallet's other services (API contract 8, 3.12): verify an access token offline against the
// issuer's JWKS. jose keeps the key set in memory, fetches it again only for a kid it does not know,
// and then at most once per cooldown, so no token costs a network call; a session the verifier was
// told has ended (a `session.ended` event) is refused before its token's `exp`.

export interface TokenVerifierOptions {
  /** The service's issuer URL (TOKEN_ISSUER): the `iss` every token carries. */
  issuer: string;
  /** The `aud` tokens are made for (ACCESS_TOKEN_AUDIENCE, default `wallet`). */
  audience: string;
  /** Accept only this company's tokens (`cid`). */
  companyId?: string;
  /** The JWKS URL (default: the issuer's /.well-known/jwks.json). */
  jwksUri?: string;
  /** Least time between two fetches of the JWKS for an unknown kid (default 30 s). */
  refetchCooldownMs?: number;
  /** How long an ended session is remembered: at least the access tokens' lifetime (default 900 s). */
  endedSessionMemorySeconds?: number;
  /** The fetch the JWKS is read with (default: the global one). */
  fetch?: typeof fetch;
}

/** Who an accepted token speaks for. */
export interface VerifiedToken {
  userId: string;
  companyId: string;
  sessionId: string;
  /** 1 an employee, 2 a customer. */
  userType: number;
  /** How the session began: `otp`, `pin` or `register`. */
  amr: string[];
  claims: JWTPayload;
}

/** The part of a `session.ended` event (its EventBridge `detail`) the verifier needs. */
export interface SessionEndedDetail {
  company_id?: string;
  sid: string;
}

export interface TokenVerifier {
  /** Answers who the token speaks for, or throws a WalletAuthError UNAUTHORIZED (status 401, code 4). */
  verify(token: string): Promise<VerifiedToken>;
  /** Refuses this session from now on, before its tokens expire: pass a `session.ended` event, or its `detail`. */
  sessionEnded(event: SessionEndedDetail | { detail: SessionEndedDetail }): void;
}

function refused(reason: string, cause?: unknown): WalletAuthError {
  return new WalletAuthError(401, [4], { message: 'UNAUTHORIZED', reason }, undefined, { cause });
}

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const issuer = options.issuer.replace(/\/+$/, '');
  const jwksUri = new URL(options.jwksUri ?? `${issuer}/.well-known/jwks.json`);
  const keySet = createRemoteJWKSet(jwksUri, {
    cooldownDuration: options.refetchCooldownMs ?? 30_000,
    ...(options.fetch ? { [customFetch]: options.fetch } : {}),
  });
  const memoryMs = (options.endedSessionMemorySeconds ?? 900) * 1000;
  /** sid -> when it may be forgotten: by then every token of that session has expired. */
  const ended = new Map<string, number>();

  function forgetOld(now: number): void {
    for (const [sid, until] of ended) {
      if (until > now) break;
      ended.delete(sid);
    }
  }

  return {
    async verify(token) {
      let claims: JWTPayload;
      try {
        ({ payload: claims } = await jwtVerify(token, keySet, {
          issuer,
          audience: options.audience,
          algorithms: ['ES256', 'RS256'],
          typ: 'at+jwt',
          requiredClaims: ['sub', 'exp', 'cid', 'sid'],
        }));
      } catch (error) {
        throw refused((error as { code?: string }).code ?? 'invalid', error);
      }
      const { sub, cid, sid, utp, amr } = claims as JWTPayload & { cid: unknown; sid: unknown; utp?: unknown; amr?: unknown };
      if (typeof cid !== 'string' || typeof sid !== 'string' || typeof sub !== 'string') throw refused('claims');
      if (options.companyId && cid !== options.companyId.toLowerCase()) throw refused('company');
      forgetOld(Date.now());
      if (ended.has(sid)) throw refused('session_ended');
      return {
        userId: sub,
        companyId: cid,
        sessionId: sid,
        userType: typeof utp === 'number' ? utp : 0,
        amr: Array.isArray(amr) ? amr.map(String) : [],
        claims,
      };
    },
    sessionEnded(event) {
      const detail = 'detail' in event ? event.detail : event;
      if (options.companyId && detail.company_id && detail.company_id !== options.companyId.toLowerCase()) return;
      ended.delete(detail.sid);
      ended.set(detail.sid, Date.now() + memoryMs);
    },
  };
}
