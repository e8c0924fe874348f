import { type KeyObject, randomBytes, sign } from 'node:crypto';
import { deviceSignedText, loginPinText } from '../../lib/devices/device-signatures.js';
import { newKeyPair } from '../../lib/secrets/key-pairs.js';

// A stand-in for a phone's keystore: a P-256 key pair whose private half stays here, and the
// signed body of a PIN login as the app sends it (API contract 3.6). For the tests, the bench and
// scripts/sign-login-pin.ts.

export interface DeviceKeyPair {
  /** Base64 SPKI DER: what device_public_key carries. */
  publicKey: string;
  privateKey: KeyObject;
}

export function newDeviceKeyPair(curve = 'prime256v1'): DeviceKeyPair {
  const { spki, privateKey } = newKeyPair({ type: 'ec', namedCurve: curve });
  return { publicKey: spki.toString('base64'), privateKey };
}

/** A base64 ECDSA P-256 / SHA-256 signature, DER (what Android and iOS produce) or raw r||s. */
export function signText(privateKey: KeyObject, text: string, encoding: 'der' | 'raw' = 'der'): string {
  const dsaEncoding = encoding === 'raw' ? 'ieee-p1363' : 'der';
  return sign('sha256', Buffer.from(text, 'utf8'), { key: privateKey, dsaEncoding }).toString('base64');
}

/** A fresh nonce of 22 url-safe characters. */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}

/** A login_pin body signed by the device, at a timestamp (UNIX seconds) and with a nonce of the caller's choosing or fresh. */
export function signedLoginPin(
  device: { privateKey: KeyObject; deviceKey: string },
  companyId: string,
  pin: string,
  options: { timestamp: number; nonce?: string; encoding?: 'der' | 'raw' },
): { device_key: string; login_pin: string; timestamp: number; nonce: string; signature: string } {
  const nonce = options.nonce ?? newNonce();
  const text = loginPinText(companyId, device.deviceKey, options.timestamp, nonce);
  return {
    device_key: device.deviceKey,
    login_pin: pin,
    timestamp: options.timestamp,
    nonce,
    signature: signText(device.privateKey, text, options.encoding),
  };
}

/** A step_up body signed by the device (API contract 3.15): login_pin's, over "step_up\n..." instead. */
export function signedStepUp(
  device: { privateKey: KeyObject; deviceKey: string },
  companyId: string,
  pin: string,
  timestamp: number,
): { device_key: string; login_pin: string; timestamp: number; nonce: string; signature: string } {
  const nonce = newNonce();
  const text = deviceSignedText('step_up', companyId, device.deviceKey, timestamp, nonce);
  return { device_key: device.deviceKey, login_pin: pin, timestamp, nonce, signature: signText(device.privateKey, text) };
}
