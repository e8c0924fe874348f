import { base64url, type JWK, SignJWT } from 'jose';
import { randomKey } from './random.js';

// DPoP proofs (RFC 9449, contract 3.17): each call carries a proof signed by the device key (the
// non-extractable WebCrypto key of device-keys.ts) for its method and URL, over the access token
// when the session is bound, with the server's latest nonce when it gave one. jose signs; nothing of
// JWS is written here.

/** What a proof is made with: the device key's private CryptoKey and its public JWK. */
export interface DpopKey {
  privateKey: CryptoKey;
  publicJwk: JsonWebKey;
}

export interface ProofRequest {
  method: string;
  /** The URL called; its query and fragment are left out of htu. */
  url: string;
  /** The bound access token the call sends, for ath. */
  accessToken?: string | undefined;
  nonce?: string | undefined;
  /** Seconds since the epoch by the service's clock, as far as the client knows it. */
  nowSeconds: number;
}

async function sha256(text: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text))));
}

/** A proof for one request (a new jti every time, so a retry carries a proof of its own). */
export async function dpopProof(key: DpopKey, request: ProofRequest): Promise<string> {
  const url = new URL(request.url);
  const claims = {
    htm: request.method,
    htu: `${url.protocol}//${url.host}${url.pathname}`,
    jti: randomKey(),
    iat: Math.floor(request.nowSeconds),
    ...(request.accessToken ? { ath: await sha256(request.accessToken) } : {}),
    ...(request.nonce ? { nonce: request.nonce } : {}),
  };
  return new SignJWT(claims).setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: key.publicJwk as JWK }).sign(key.privateKey);
}
