import * as z from 'zod/mini';
import { phoneFields, withPhoneE164 } from '../users/phone-number.js';
import { userTypeField } from '../users/user-types.js';

// The bodies of login_phone and verify_otp (API contract 3.2 and 3.3).

export const OtpType = { LOGIN: 1, PHONE_VERIFICATION: 2, WALLET_TOP_UP: 3, KYC_DOCUMENT: 4 } as const;

/** Purposes that act on an existing account: the caller's token must own the phone. */
export const OWNER_ONLY_OTP_TYPES: readonly number[] = [OtpType.WALLET_TOP_UP, OtpType.KYC_DOCUMENT];

const codeTarget = {
  ...phoneFields,
  user_type: userTypeField,
  otp_type: z.union(
    Object.values(OtpType).map((value) => z.literal(value)),
    { error: 'must be 1 (login), 2 (phone verification), 3 (wallet top-up) or 4 (KYC document)' },
  ),
};

export const loginPhoneBody = withPhoneE164(z.object(codeTarget));

export const verifyOtpBody = withPhoneE164(
  z.object({ ...codeTarget, otp: z.string().check(z.regex(/^[0-9]{6}$/, 'must be the 6 digits received')) }),
);

export type LoginPhoneInput = z.output<typeof loginPhoneBody>;
export type VerifyOtpInput = z.output<typeof verifyOtpBody>;
