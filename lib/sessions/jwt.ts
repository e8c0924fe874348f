import { randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { SIGNING_ALGORITHMS } from '../config.js';
import { ServerSecretUnavailable } from '../secrets/server-keys.js';
import type { Acr, SessionStart } from '../store/session-store.js';
import { acrOfSession } from './session-strength.js';

/** The `amr` claim of a session begun this way (RFC 8176 names where one fits). */
function amrOf(began: SessionStart): string[] {
  // A passkey (API contract 3.16): a hardware-backed key, the user verified by the authenticator.
  return began === 'passkey' ? ['hwk', 'user'] : [began];
}

/** How a session began, from its `amr` claim's first value. */
function startOfAmr(first: unknown): SessionStart {
  return (first === 'hwk' ? 'passkey' : first) as SessionStart;
}

// Access tokens (API contract 3.12): compact JWS, ES256 or RS256 (the signing key's own algorithm),
// `kid` in the header, signed with the newest signing key (lib/secrets/signing-keys.ts) by `jose`.
// Any service of the wallet verifies them offline against the JWKS; this service also requires the
// session `sid` names to be live.

/** What an access token says: the claims of contract 3.12. */
export interface AccessClaims {
  companyId: string;
  userId: string;
  sessionId: string;
  userType: number;
  began: SessionStart;
  /** When the session was last proven (epoch seconds: its start, or a step-up): RFC 9068's auth_time. */
  authTime: number;
  /** How strong the session is (API contract 3.15), fixed for its life. */
  acr: Acr;
  /** The RFC 7638 thumbprint of the key the session is bound to (DPoP, contract 3.17): the token's `cnf.jkt`. */
  jkt?: string | undefined;
}

export interface SignedAccessToken {
  token: string;
  /** Seconds until it expires, as the answer's expires_in says. */
  expiresIn: number;
}

type JwtParts = Pick<App, 'config' | 'clock' | 'signingKeys'>;

const HEX_ID = /^[0-9a-f]{32}$/;

/** A new access token for a session; it never outlives the session's own end (`sessionEndsAt`, epoch seconds). */
export async function signAccessToken(app: JwtParts, claims: AccessClaims, sessionEndsAt: number): Promise<SignedAccessToken> {
  requireIssuer(app);
  const { kid, alg, key } = await app.signingKeys.signingKey();
  const now = epochSeconds(app.clock);
  const expiresAt = Math.min(now + app.config.accessTokenTtlSeconds, sessionEndsAt);
  const payload = {
    cid: claims.companyId,
    sid: claims.sessionId,
    utp: claims.userType,
    amr: amrOf(claims.began),
    acr: claims.acr,
    auth_time: claims.authTime,
    ...(claims.jkt ? { cnf: { jkt: claims.jkt } } : {}),
  };
  // RFC 9068's access token profile: typ at+jwt, a unique jti, auth_time.
  const token = await new SignJWT(payload)
    .setProtectedHeader({ alg, kid, typ: 'at+jwt' })
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuer(app.config.tokenIssuer)
    .setAudience(app.config.tokenAudience)
    .setSubject(claims.userId)
    .setIssuedAt(now)
    .setExpirationTime(expiresAt)
    .sign(key);
  return { token, expiresIn: Math.max(0, expiresAt - now) };
}

/** No issuer configured (TOKEN_ISSUER on a deployed stage): the service cannot sign or verify, and answers 503. */
function requireIssuer({ config }: Pick<App, 'config'>): void {
  if (!config.tokenIssuer) throw new ServerSecretUnavailable('TOKEN_ISSUER is not set');
}

/** Whether a base64url text is the one spelling of the bytes it decodes to. */
function isCanonicalBase64url(text: string): boolean {
  return Buffer.from(text, 'base64url').toString('base64url') === text;
}

/** Whether a token is shaped as a compact JWS (three base64url parts), rather than an opaque token. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/**
 * The claims of an access token of this company, or undefined when it is forged, altered, expired,
 * not yet valid, signed by a kid that no longer verifies, for another issuer, audience or company.
 */
export async function verifyAccessToken(app: JwtParts, companyId: string, token: string): Promise<AccessClaims | undefined> {
  requireIssuer(app);
  // One spelling per token: base64url decoders ignore a last character's unused bits, which would let one signature be written four ways.
  if (!isCanonicalBase64url(token.slice(token.lastIndexOf('.') + 1))) return undefined;
  try {
    const { payload } = await jwtVerify(
      token,
      // A key of that kid and of the header's alg, or none: a token never picks how our key is used.
      async ({ kid, alg }) => {
        const key = kid ? await app.signingKeys.verifyingKey(kid, alg) : undefined;
        if (!key) throw new Error('no key of this kid and alg');
        return key;
      },
      {
        algorithms: [...SIGNING_ALGORITHMS],
        issuer: app.config.tokenIssuer,
        audience: app.config.tokenAudience,
        currentDate: new Date(app.clock.now()),
        requiredClaims: ['sub', 'exp', 'iat'],
      },
    );
    const { sub, cid, sid, utp, amr, acr, auth_time: authTime, iat, cnf } = payload as Record<string, unknown>;
    if (cid !== companyId || typeof sub !== 'string' || !HEX_ID.test(sub) || typeof sid !== 'string' || !HEX_ID.test(sid)) return undefined;
    if (typeof utp !== 'number' || !Array.isArray(amr)) return undefined;
    // Tokens signed before auth_time was added (15 minutes at most) say when they were issued instead.
    const began = typeof authTime === 'number' ? authTime : (iat as number);
    // Tokens signed before acr was added say how the session began, which is what their strength was.
    const strength = acr === 'strong' || acr === 'sms' ? acr : acrOfSession({ began: amr[0] as string });
    // A cnf this service did not write (it writes only a jkt string) is refused, never read as unbound.
    const jkt = cnf === undefined ? undefined : (cnf as { jkt?: unknown } | null)?.jkt;
    if (cnf !== undefined && typeof jkt !== 'string') return undefined;
    return {
      companyId,
      userId: sub,
      sessionId: sid,
      userType: utp,
      began: startOfAmr(amr[0]),
      authTime: began,
      acr: strength,
      ...(typeof jkt === 'string' ? { jkt } : {}),
    };
  } catch (error) {
    // A key set that cannot be read is the service's failure (503), not the token's.
    if ((error as Error).name === 'ServerSecretUnavailable') throw error;
    return undefined;
  }
}
