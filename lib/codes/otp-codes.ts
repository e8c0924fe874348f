import { createHmac, randomInt } from 'node:crypto';
import type { ServerKeys } from '../secrets/server-keys.js';
import { type ItemKey, otpKey } from '../store/keys.js';

/** A code as sent and as typed: 6 digits. */
export const OTP_CODE_PATTERN = /^[0-9]{6}$/;

/** What a code is for: one phone, one user type, one purpose. */
export interface CodeTarget {
  phone_e164: string;
  user_type: number;
  otp_type: number;
}

/** Where the one live code of a target is stored. */
export function codeKey(companyId: string, target: CodeTarget): ItemKey {
  return otpKey(companyId, target.phone_e164, target.user_type, target.otp_type);
}

/** Six digits from the cryptographic random source. */
export function newOtpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * A 6-digit code falls to brute force from any plain hash, so codes are stored as an HMAC
 * under a server key, bound to the company, phone, user type and purpose they were sent for.
 */
export function otpCodeHash(key: Buffer, companyId: string, target: CodeTarget, code: string): string {
  const bound = [companyId, target.phone_e164, target.user_type, target.otp_type, code].join('|');
  return createHmac('sha256', key).update(bound).digest('base64url');
}

/** The HMAC of a code under the current OTP key, and that key's version (stored beside it). */
export async function currentOtpCodeHash(keys: ServerKeys, companyId: string, target: CodeTarget, code: string) {
  const { version, key } = await keys.current('otp');
  return { codeHash: otpCodeHash(key, companyId, target, code), keyVersion: version };
}
