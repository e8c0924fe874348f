import { randomBytes } from 'node:crypto';
import { fieldError } from '../errors.js';
import { getReferralCodeOwner } from '../store/referral-store.js';
import type { Table } from '../store/table.js';

// Crockford's base32 alphabet: no I, L, O or U, so a code read aloud or retyped stays right.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const REFERRAL_CODE_LENGTH = 8;

/** A fresh random code (40 bits); uniqueness is enforced by the claim written with the user. */
export function newReferralCode(): string {
  return [...randomBytes(REFERRAL_CODE_LENGTH)].map((byte) => ALPHABET[byte & 31]).join('');
}

/** The user who owns this code in this company, or INVALID_REFERRAL_CODE. */
export async function requireReferrer(table: Table, companyId: string, referralCode: string): Promise<string> {
  const ownerId = await getReferralCodeOwner(table, companyId, referralCode);
  if (!ownerId) throw fieldError('INVALID_REFERRAL_CODE', 'referral_code', 'no user of this company has this code');
  return ownerId;
}
