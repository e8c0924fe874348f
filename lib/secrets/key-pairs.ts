import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';

// New key pairs whose key objects no key generation job of Node's shares. Node 20 can deadlock
// exporting a generated key (its JWK, its SPKI): the export holds the key's mutex, a garbage
// collection during it finalizes the spent generation job, and the job's destructor takes the
// same mutex. Seen once in a test run: a worker stuck for good in ExportJWKRsaKey under
// ~KeyGenJob. Generated as DER, read back into key objects of their own, they cannot meet it.

export type KeyPairKind = { type: 'ec'; namedCurve: string } | { type: 'rsa'; modulusLength: number };

const PKCS8_DER = { type: 'pkcs8', format: 'der' } as const;
const SPKI_DER = { type: 'spki', format: 'der' } as const;

/** The pair, and the public key's SPKI DER as generated (what a device_public_key carries, in base64). */
export function newKeyPair(kind: KeyPairKind): { privateKey: KeyObject; publicKey: KeyObject; spki: Buffer } {
  const der =
    kind.type === 'ec'
      ? generateKeyPairSync('ec', { namedCurve: kind.namedCurve, privateKeyEncoding: PKCS8_DER, publicKeyEncoding: SPKI_DER })
      : // 65537, as every JOSE library expects.
        generateKeyPairSync('rsa', {
          modulusLength: kind.modulusLength,
          publicExponent: 65537,
          privateKeyEncoding: PKCS8_DER,
          publicKeyEncoding: SPKI_DER,
        });
  return {
    privateKey: createPrivateKey({ key: der.privateKey, ...PKCS8_DER }),
    publicKey: createPublicKey({ key: der.publicKey, ...SPKI_DER }),
    spki: der.publicKey,
  };
}
