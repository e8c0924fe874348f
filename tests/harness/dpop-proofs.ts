import { type KeyObject, randomBytes } from 'node:crypto';
import { calculateJwkThumbprint, type JWK, SignJWT } from 'jose';
import { newKeyPair } from '../../lib/secrets/key-pairs.js';
import { accessTokenHash } from '../../lib/sessions/dpop-proofs.js';

// A stand-in for the app's DPoP key (contract 3.17): a P-256 key pair, and proofs signed by it
// with jose, for a request's method and URL, over an access token, with a server nonce: each part
// may be overridden, so the tests can also make the proofs a hostile client would.

export interface DpopKey {
  privateKey: KeyObject;
  publicJwk: JWK;
  /** Its RFC 7638 thumbprint: the cnf.jkt of the tokens bound to it. */
  jkt: string;
  /** Base64 SPKI DER: what device_public_key carries, for a device that is this same key. */
  spki: string;
}

export async function newDpopKey(): Promise<DpopKey> {
  const { publicKey, privateKey, spki } = newKeyPair({ type: 'ec', namedCurve: 'prime256v1' });
  const publicJwk = publicKey.export({ format: 'jwk' }) as JWK;
  return {
    privateKey,
    publicJwk,
    jkt: await calculateJwkThumbprint(publicJwk, 'sha256'),
    spki: spki.toString('base64'),
  };
}

export interface ProofOptions {
  htm: string;
  htu: string;
  accessToken?: string;
  nonce?: string;
  /** UNIX seconds; now unless given. */
  iat?: number;
  jti?: string;
  /** Replaces or adds protected header parameters (typ, alg, jwk). */
  header?: Record<string, unknown>;
  /** Replaces or adds claims. */
  claims?: Record<string, unknown>;
}

/** A DPoP proof by the key, as RFC 9449 section 4.2 describes it. */
export async function dpopProof(key: DpopKey, options: ProofOptions): Promise<string> {
  const payload = {
    htm: options.htm,
    htu: options.htu,
    jti: options.jti ?? randomBytes(16).toString('base64url'),
    iat: options.iat ?? Math.floor(Date.now() / 1000),
    ...(options.accessToken ? { ath: accessTokenHash(options.accessToken) } : {}),
    ...(options.nonce ? { nonce: options.nonce } : {}),
    ...options.claims,
  };
  return new SignJWT(payload)
    .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk, ...options.header } as never)
    .sign(key.privateKey);
}
