import * as z from 'zod/mini';
import { sessionResult } from '../sessions/session-result.js';

export const verifyOtpResult = z.lazy(() =>
  z.union([
    sessionResult().check(z.meta({ description: 'otp_type 1 (login): a session' })),
    z
      .object({
        message: z.string(),
        verified: z.literal(1),
        verification_token: z.string().check(
          z.meta({
            description:
              'Proof that this phone received the code: opaque, single use, short-lived, bound to the company, phone, user_type and otp_type (and for 3 and 4 to the token’s user). Send it as phone_verification_token when registering (otp_type 2).',
          }),
        ),
      })
      .check(z.meta({ description: 'otp_type 2, 3, 4' })),
  ]),
);

export type VerifyOtpResult = z.output<typeof verifyOtpResult>;
