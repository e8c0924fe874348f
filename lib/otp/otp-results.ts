import * as z from 'zod/mini';
import { sessionResult } from '../tokens/session-result.js';

export const loginPhoneResult = z.object({
  message: z.string(),
  expires_in: z.int().check(z.meta({ description: 'Seconds the code stays valid' })),
});

export const verifyOtpResult = z.union([
  sessionResult.check(z.meta({ description: 'otp_type 1 (login): a session' })),
  z.object({ message: z.string(), verified: z.literal(1) }).check(z.meta({ description: 'otp_type 2, 3, 4' })),
]);

export type LoginPhoneResult = z.output<typeof loginPhoneResult>;
export type VerifyOtpResult = z.output<typeof verifyOtpResult>;
