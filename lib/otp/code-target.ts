import * as z from 'zod/mini';
import { OtpType } from '../codes/otp-types.js';
import { phoneFields } from '../users/phone-number.js';
import { userTypeField } from '../users/user-types.js';

// What a code is sent to and checked for: a phone, a user type and a purpose. login_phone and
// verify_otp share these fields (API contract 3.2 and 3.3).

export { OtpType } from '../codes/otp-types.js';

/** Purposes that act on an existing account: the caller's token must own the phone. */
export const OWNER_ONLY_OTP_TYPES: readonly number[] = [OtpType.WALLET_TOP_UP, OtpType.KYC_DOCUMENT];

/** Built with the body that holds them, on first use. */
export const codeTargetFields = () => ({
  ...phoneFields(),
  user_type: userTypeField(),
  otp_type: z.union(
    Object.values(OtpType).map((value) => z.literal(value)),
    { error: 'must be 1 (login), 2 (phone verification), 3 (wallet top-up) or 4 (KYC document)' },
  ),
});
