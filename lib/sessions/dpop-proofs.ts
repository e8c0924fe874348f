import { createHash, createHmac, createPublicKey } from 'node:crypto';
import { calculateJwkThumbprint, decodeProtectedHeader, EmbeddedJWK, type JWK, jwtVerify } from 'jose';
import type { App } from '../app-context.js';
import { epochSeconds } from '../clock.js';
import { AppError } from '../errors.js';

// DPoP proofs (RFC 9449, API contract 3.17): a JWS the client signs with its device key (P-256,
// ES256) for each request, naming the method (htm), the URL without query (htu), when (iat), a
// unique id (jti), and for a bound access token its SHA-256 (ath). `jose` verifies the signature
// with the embedded public key and computes the key's RFC 7638 thumbprint (jkt); nothing of JWS is
// parsed here. A proof is fresh when its iat is within config.dpopProofMaxAgeSeconds, or when it
// carries a nonce this service issued lately (RFC 9449 section 8): a client whose clock is wrong
// is answered use_dpop_nonce with a nonce, and its retry with it passes. With config.dpopNonce a
// nonce is always required.

/** Longest DPoP header read; a longer one is answered 413 unread. */
export const DPOP_PROOF_MAX_BYTES = 8192;

/** The one algorithm a proof may use: the app's keystore key is P-256 (contract 3.6). */
const PROOF_ALGORITHMS = ['ES256'];

/** What a verified proof says. */
export interface DpopProof {
  /** The RFC 7638 thumbprint of the key that signed it. */
  jkt: string;
  jti: string;
  iat: number;
  ath: string | undefined;
  /** The server nonce it carries, when one of ours. */
  nonce: string | undefined;
}

/** A token's `ath`: base64url of its SHA-256 (RFC 9449 section 4.2). */
export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'ascii').digest('base64url');
}

/** The challenge every refusal of a DPoP-bound call carries (RFC 9449 section 7.1). */
export function dpopChallenge(error: 'invalid_token' | 'invalid_dpop_proof' | 'use_dpop_nonce', description: string): string {
  return `DPoP error="${error}", error_description="${description}", algs="${PROOF_ALGORITHMS.join(' ')}"`;
}

/** 401 code 4 for a proof or a bound token refused, with the DPoP challenge; the reason is logged by the chain, never answered in detail. */
export function dpopRefused(reason: string, options: { nonce?: string; error?: 'invalid_token' | 'use_dpop_nonce' } = {}): AppError {
  const error = options.error ?? (options.nonce ? 'use_dpop_nonce' : 'invalid_dpop_proof');
  const description = error === 'use_dpop_nonce' ? 'a fresh proof with the DPoP-Nonce is needed' : 'the DPoP proof or token is not valid';
  return new AppError('UNAUTHORIZED', {
    detail: `DPoP: ${reason}`,
    headers: {
      'www-authenticate': dpopChallenge(error, description),
      ...(options.nonce ? { 'dpop-nonce': options.nonce } : {}),
    },
  });
}

/** The nonce this service issues now: the time step it was issued in and an HMAC of it, stateless (valid this step and the one before). */
export async function issueNonce(app: Pick<App, 'keys' | 'clock' | 'config'>, companyId: string): Promise<string> {
  const step = Math.floor(epochSeconds(app.clock) / app.config.dpopProofMaxAgeSeconds);
  return nonceOf(app, companyId, step);
}

async function nonceOf(app: Pick<App, 'keys'>, companyId: string, step: number): Promise<string> {
  const { key } = await app.keys.current('dpop-nonce');
  return `${step.toString(36)}.${createHmac('sha256', key).update(`${companyId}.${step}`).digest('base64url').slice(0, 22)}`;
}

/** Whether a nonce is one this service issued in this time step or the one before. */
async function nonceIsFresh(app: Pick<App, 'keys' | 'clock' | 'config'>, companyId: string, nonce: string): Promise<boolean> {
  const step = Math.floor(epochSeconds(app.clock) / app.config.dpopProofMaxAgeSeconds);
  for (const candidate of [step, step - 1]) if (nonce === (await nonceOf(app, companyId, candidate))) return true;
  return false;
}

/** The URLs a proof's htu may name for a request: TOKEN_ISSUER's origin (or its base) and the path, or locally the request's own host. */
export function expectedHtus(
  config: Pick<App['config'], 'tokenIssuer' | 'dpopHtuFromHost'>,
  path: string,
  host: string | undefined,
): string[] {
  const urls = new Set<string>();
  if (config.tokenIssuer) {
    const issuer = new URL(config.tokenIssuer);
    urls.add(`${issuer.origin}${path}`);
    const base = issuer.pathname.replace(/\/+$/, '');
    if (base && !path.startsWith(`${base}/`)) urls.add(`${issuer.origin}${base}${path}`);
  }
  if (config.dpopHtuFromHost && host && /^[A-Za-z0-9.-]+(:\d{1,5})?$/.test(host)) {
    urls.add(`http://${host.toLowerCase()}${path}`);
    urls.add(`https://${host.toLowerCase()}${path}`);
  }
  return [...urls];
}

/** An htu as compared: scheme, host and path, lower-case host, no query or fragment (RFC 9449 section 4.3). */
function htuOf(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  try {
    const url = new URL(value);
    return `${url.protocol}//${url.host}${url.pathname}`;
  } catch {
    return undefined;
  }
}

/** What a request's proof is checked against. */
export interface ProofTarget {
  companyId: string;
  method: string;
  htus: string[];
}

/**
 * A DPoP header's proof, verified for this request: signature by its own embedded P-256 public
 * key, typ dpop+jwt, htm, htu, a jti, and fresh (iat in the window, or a nonce issued lately; the
 * nonce required with config.dpopNonce). Refused with dpopRefused, nothing spent.
 */
export async function verifyProof(app: Pick<App, 'keys' | 'clock' | 'config'>, proof: string, target: ProofTarget): Promise<DpopProof> {
  // Each part in its one base64url spelling: the unused bits of a part's last character change its text and not its
  // bytes, and a proof is one string (what the client signed), not a family of equivalent ones.
  if (!proof.split('.').every((part) => Buffer.from(part, 'base64url').toString('base64url') === part)) {
    throw dpopRefused('a part is not canonical base64url');
  }
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(proof);
  } catch {
    throw dpopRefused('malformed proof');
  }
  const jwk = header.jwk as (JWK & Record<string, unknown>) | undefined;
  if (header.typ !== 'dpop+jwt') throw dpopRefused('typ is not dpop+jwt');
  if (!PROOF_ALGORITHMS.includes(String(header.alg))) throw dpopRefused(`alg ${String(header.alg)} is not allowed`);
  if (!jwk || typeof jwk !== 'object') throw dpopRefused('no jwk in the header');
  if ('d' in jwk || 'p' in jwk || 'k' in jwk) throw dpopRefused('the jwk holds a private or secret key');
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256') throw dpopRefused('the jwk is not a P-256 key');
  let payload: Record<string, unknown>;
  try {
    ({ payload } = await jwtVerify(proof, EmbeddedJWK, {
      typ: 'dpop+jwt',
      algorithms: PROOF_ALGORITHMS,
      currentDate: new Date(app.clock.now()),
    }));
  } catch (error) {
    throw dpopRefused(`signature or claims: ${(error as Error).message}`);
  }
  const { htm, htu, iat, jti, ath, nonce } = payload;
  if (typeof jti !== 'string' || jti.length < 8 || jti.length > 256) throw dpopRefused('jti missing or not 8 to 256 characters');
  if (htm !== target.method) throw dpopRefused('htm is not the request method');
  const named = htuOf(htu);
  if (!named || !target.htus.includes(named)) throw dpopRefused(`htu ${String(htu).slice(0, 100)} is not this request's URL`);
  if (typeof iat !== 'number' || !Number.isFinite(iat)) throw dpopRefused('iat missing');
  if (ath !== undefined && typeof ath !== 'string') throw dpopRefused('ath is not a string');
  if (nonce !== undefined && typeof nonce !== 'string') throw dpopRefused('nonce is not a string');
  const withNonce = typeof nonce === 'string' && (await nonceIsFresh(app, target.companyId, nonce));
  if (!withNonce) {
    const fresh = await issueNonce(app, target.companyId);
    if (nonce !== undefined) throw dpopRefused('nonce is not one issued lately', { nonce: fresh });
    if (app.config.dpopNonce) throw dpopRefused('a nonce is required', { nonce: fresh });
    const age = epochSeconds(app.clock) - iat;
    // A little skew ahead is tolerated; further ahead is a proof made in advance.
    if (age < -5) throw dpopRefused('iat is in the future', { nonce: fresh });
    if (age > app.config.dpopProofMaxAgeSeconds) throw dpopRefused('iat is too old', { nonce: fresh });
  }
  const publicJwk = { kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y } as JWK;
  return {
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
    jti,
    iat,
    ath: ath as string | undefined,
    nonce: nonce as string | undefined,
  };
}

/** The RFC 7638 thumbprint of a device's public key (base64 SPKI DER, as lib/devices keeps it). */
export async function thumbprintOfSpki(spkiBase64: string): Promise<string | undefined> {
  try {
    const jwk = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' }).export({ format: 'jwk' });
    return await calculateJwkThumbprint(jwk as JWK, 'sha256');
  } catch {
    return undefined;
  }
}
