import {
  base64url,
  calculateJwkThumbprint,
  createRemoteJWKSet,
  customFetch,
  EmbeddedJWK,
  type JWK,
  type JWTPayload,
  jwtVerify,
} from 'jose';
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
  /** verifyRequest: how old (seconds) a DPoP proof's iat may be (default 60, the service's DPOP_PROOF_MAX_AGE_SECONDS). */
  dpopProofMaxAgeSeconds?: number;
  /** verifyRequest: refuse tokens that are not bound to a key (default false: unbound tokens pass as `Bearer`/`Token`). */
  requireDpop?: boolean;
}

/** A request as verifyRequest reads it: its method, its full URL as the client called it, its headers. */
export interface VerifiableRequest {
  method: string;
  /** The URL the client called (scheme, host, path; a query is ignored), e.g. `https://payments.example.com/v1/pay`. */
  url: string;
  /** Node's IncomingHttpHeaders (lower-case names), a plain object, or a fetch Headers. */
  headers: Headers | Record<string, string | string[] | undefined>;
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
  /** The RFC 7638 thumbprint of the key the token is bound to (DPoP, contract 3.17), if it is bound. */
  jkt?: string;
  claims: JWTPayload;
}

/** The part of a `session.ended` event (its EventBridge `detail`) the verifier needs. */
export interface SessionEndedDetail {
  company_id?: string;
  sid: string;
}

export interface TokenVerifier {
  /**
   * Answers who the token speaks for, or throws a WalletAuthError UNAUTHORIZED (status 401, code 4).
   * A bound token (cnf.jkt) is refused here: its proof can only be checked with the request, by verifyRequest.
   */
  verify(token: string): Promise<VerifiedToken>;
  /**
   * Checks a request's Authorization and, for a token bound to a key, its DPoP proof (RFC 9449): the
   * `DPoP` scheme, a proof by the token's key for this method and URL over this token, fresh, and
   * not seen before by this verifier. Answers who calls, or throws UNAUTHORIZED (401, code 4);
   * a service answers that with `WWW-Authenticate: DPoP` (wwwAuthenticate).
   */
  verifyRequest(request: VerifiableRequest): Promise<VerifiedToken>;
  /** Refuses this session from now on, before its tokens expire: pass a `session.ended` event, or its `detail`. */
  sessionEnded(event: SessionEndedDetail | { detail: SessionEndedDetail }): void;
}

/** The challenge a service answers a refused bound call with (RFC 9449 section 7.1). */
export const wwwAuthenticate = 'DPoP error="invalid_token", algs="ES256"';

function headerOf(headers: VerifiableRequest['headers'], name: string): string[] {
  if (typeof (headers as Headers).get === 'function') {
    const value = (headers as Headers).get(name);
    return value === null ? [] : [value];
  }
  const value = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

/** A URL as a proof's htu is compared: scheme, host and path (RFC 9449 section 4.3). */
function comparableUrl(url: unknown): string | undefined {
  if (typeof url !== 'string') return undefined;
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

async function sha256Base64url(text: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
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

  const maxAgeSeconds = options.dpopProofMaxAgeSeconds ?? 60;
  /** `jkt.jti` -> when it may be forgotten: a proof is taken once by this verifier. */
  const seenProofs = new Map<string, number>();

  async function verifyToken(token: string): Promise<VerifiedToken> {
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
    const cnf = (claims as { cnf?: { jkt?: unknown } }).cnf;
    if (cnf !== undefined && typeof cnf?.jkt !== 'string') throw refused('cnf');
    return {
      userId: sub,
      companyId: cid,
      sessionId: sid,
      userType: typeof utp === 'number' ? utp : 0,
      amr: Array.isArray(amr) ? amr.map(String) : [],
      ...(typeof cnf?.jkt === 'string' ? { jkt: cnf.jkt } : {}),
      claims,
    };
  }

  /** Whether the text is the one base64url spelling of the bytes it decodes to. */
  function isCanonicalBase64url(part: string): boolean {
    try {
      return base64url.encode(base64url.decode(part)) === part;
    } catch {
      return false;
    }
  }

  /** The proof of a request, checked against its bound token; refused as a whole, whatever is wrong. */
  async function checkProof(request: VerifiableRequest, token: string, jkt: string): Promise<void> {
    const proofs = headerOf(request.headers, 'dpop');
    const proof = proofs[0];
    if (proofs.length !== 1 || !proof || proof.includes(',') || proof.length > 8192) throw refused('dpop_proof_missing');
    // Each part in its one base64url spelling: unused bits of a last character change the text, not the bytes.
    if (!proof.split('.').every(isCanonicalBase64url)) throw refused('dpop_proof_invalid');
    let payload: JWTPayload;
    let jwk: JWK | undefined;
    try {
      const verified = await jwtVerify(proof, EmbeddedJWK, { typ: 'dpop+jwt', algorithms: ['ES256'] });
      payload = verified.payload;
      jwk = verified.protectedHeader.jwk;
    } catch (error) {
      throw refused('dpop_proof_invalid', error);
    }
    if (!jwk || 'd' in jwk || (await calculateJwkThumbprint(jwk, 'sha256')) !== jkt) throw refused('dpop_key');
    const { htm, htu, iat, jti, ath } = payload as JWTPayload & { htm?: unknown; htu?: unknown; ath?: unknown };
    if (htm !== request.method.toUpperCase()) throw refused('dpop_htm');
    const expected = comparableUrl(request.url);
    if (!expected || comparableUrl(htu) !== expected) throw refused('dpop_htu');
    if (ath !== (await sha256Base64url(token))) throw refused('dpop_ath');
    const now = Math.floor(Date.now() / 1000);
    if (typeof iat !== 'number' || now - iat > maxAgeSeconds || iat - now > 5) throw refused('dpop_iat');
    if (typeof jti !== 'string' || jti.length < 8 || jti.length > 256) throw refused('dpop_jti');
    for (const [seen, until] of seenProofs) {
      if (until > now) break;
      seenProofs.delete(seen);
    }
    const key = `${jkt}.${jti}`;
    if (seenProofs.has(key)) throw refused('dpop_replayed');
    seenProofs.set(key, now + maxAgeSeconds + 5);
  }

  return {
    async verify(token) {
      const verified = await verifyToken(token);
      if (verified.jkt) throw refused('bound_token_without_proof');
      return verified;
    },
    async verifyRequest(request) {
      const [authorization] = headerOf(request.headers, 'authorization');
      const [, scheme = '', token = ''] = authorization?.trim().match(/^(DPoP|Bearer|Token)\s+(\S+)$/i) ?? [];
      if (!token) throw refused('authorization');
      const verified = await verifyToken(token);
      if (!verified.jkt) {
        if (options.requireDpop) throw refused('unbound_token');
        return verified;
      }
      if (scheme.toLowerCase() !== 'dpop') throw refused('bound_token_as_bearer');
      await checkProof(request, token, verified.jkt);
      return verified;
    },
    sessionEnded(event) {
      const detail = 'detail' in event ? event.detail : event;
      if (options.companyId && detail.company_id && detail.company_id !== options.companyId.toLowerCase()) return;
      ended.delete(detail.sid);
      ended.set(detail.sid, Date.now() + memoryMs);
    },
  };
}
