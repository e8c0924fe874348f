import * as z from 'zod/mini';
import type { Call, RequestKey } from '../call.js';
import { OTP_CODE_PATTERN } from '../codes/otp-codes.js';
import { deviceBindingFields } from '../devices/device-fields.js';
import { withPhoneE164 } from '../users/phone-number.js';
import { codeTargetFields } from './code-target.js';

// The verify_otp body (API contract 3.3): the code's target, and the 6 digits received.

export const verifyOtpBody = z.lazy(() =>
  withPhoneE164(
    z.object({
      ...codeTargetFields(),
      otp: z.string().check(z.regex(OTP_CODE_PATTERN, 'must be the 6 digits received')),
      // otp_type 1 only: a login may bind the device it is made on.
      ...deviceBindingFields(),
    }),
  ),
);

export type VerifyOtpInput = z.output<typeof verifyOtpBody>;
export type VerifyOtpCall = Call<VerifyOtpInput> & RequestKey;
