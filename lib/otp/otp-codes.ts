import { createHmac, randomInt } from 'node:crypto';
import { serverKey } from '../secrets/server-keys.js';

/** Six digits from the cryptographic random source. */
export function newOtpCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/**
 * A 6-digit code falls to brute force from any plain hash, so codes are stored as an HMAC
 * under a server key, bound to the company, phone, user type and purpose they were sent for.
 */
export function otpCodeHash(companyId: string, phoneE164: string, userType: number, otpType: number, code: string): string {
  return createHmac('sha256', serverKey('otp')).update([companyId, phoneE164, userType, otpType, code].join('|')).digest('base64url');
}
