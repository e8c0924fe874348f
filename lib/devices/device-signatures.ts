import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';

// A trusted device holds a P-256 key pair in its keystore (Secure Enclave, Android Keystore); the
// server keeps only the public key (base64 of its SPKI DER encoding) and checks ECDSA P-256 /
// SHA-256 signatures with node:crypto (API contract 3.6). The device's labels (device_id,
// device_unique_id) are never proof: only a signature is.

/** The public key a client sent, if it is a P-256 (prime256v1) key in base64 SPKI DER; else undefined. */
export function p256PublicKey(spkiBase64: string): KeyObject | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(spkiBase64)) return undefined;
  try {
    const key = createPublicKey({ key: Buffer.from(spkiBase64, 'base64'), format: 'der', type: 'spki' });
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1' ? key : undefined;
  } catch {
    return undefined;
  }
}

/** The canonical base64 of a key's SPKI DER encoding: one spelling per key, whatever the client sent. */
export function spkiBase64Of(key: KeyObject): string {
  return key.export({ format: 'der', type: 'spki' }).toString('base64');
}

/**
 * The handle of one user's binding of one key: 32 lower-case hex, the same every time that user
 * binds that key (so binding it again updates the labels), different for another user or company.
 */
export function deviceKeyOf(companyId: string, userId: string, spkiBase64: string): string {
  return createHash('sha256').update(`device|${companyId}|${userId}|${spkiBase64}`).digest('hex').slice(0, 32);
}

/** A raw r||s P-256 signature is 64 bytes; anything else is read as DER. */
const RAW_SIGNATURE_BYTES = 64;

/** Whether a base64 ECDSA P-256 / SHA-256 signature (DER or raw r||s) over the text is the key's. */
export function signatureMatches(spkiBase64: string, text: string, signatureBase64: string): boolean {
  const key = p256PublicKey(spkiBase64);
  if (!key || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(signatureBase64)) return false;
  const signature = Buffer.from(signatureBase64.replaceAll('-', '+').replaceAll('_', '/'), 'base64');
  const dsaEncoding = signature.length === RAW_SIGNATURE_BYTES ? 'ieee-p1363' : 'der';
  try {
    return verify('sha256', Buffer.from(text, 'utf8'), { key, dsaEncoding }, signature);
  } catch {
    return false;
  }
}

/** What a device signs for: a PIN login (contract 3.6), or a step-up of its strong session (3.15). */
export type DeviceSignedPurpose = 'login_pin' | 'step_up';

/** The text a device signs: its purpose first, so a PIN login's signature never steps a session up, nor the reverse. */
export function deviceSignedText(
  purpose: DeviceSignedPurpose,
  companyId: string,
  deviceKey: string,
  timestamp: number,
  nonce: string,
): string {
  return [purpose, companyId.toLowerCase(), deviceKey, String(timestamp), nonce].join('\n');
}

/** The text a PIN login signs (contract 3.6). */
export function loginPinText(companyId: string, deviceKey: string, timestamp: number, nonce: string): string {
  return deviceSignedText('login_pin', companyId, deviceKey, timestamp, nonce);
}
